"""Cards show what ran, count down while they wait, default to Deny, and never get stuck."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from hearth import HearthError
from hearth.agent import CallMalformed, TurnFailed
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.changes import Answered
from hearth.ui.chat.dialogs import EditArgumentsDialog
from hearth.ui.chat.entries import CardState, NoticeEntry, ToolCardEntry
from hearth.ui.chat.presenter import TurnPresenter
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import StepEvent
from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness

LEFT = Qt.MouseButton.LeftButton
MILK = {"title": "milk", "text": "buy milk"}
EDITED = {"title": "milk", "text": "buy oat milk"}


class FakeClock:
    """A `ConsentRequest`'s countdown, moved by hand."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.paused = False

    def remaining(self) -> float:
        return self.seconds

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False


def save_milk(script: list[Reply]) -> None:
    script.append(Reply(reasoning="I will save the note.", calls=[("notes_add", MILK)]))
    script.append(Reply(text="Saved."))


def edit_and_run(harness: Harness, card: ToolCard, qtbot: Any, arguments: dict) -> None:
    qtbot.mouseClick(card.edit, LEFT)
    dialog = harness.window.findChild(EditArgumentsDialog)
    dialog.editor.setPlainText(json.dumps(arguments))
    qtbot.mouseClick(dialog.run, LEFT)
    harness.wait_for_turn_end()


def test_an_edited_call_s_card_shows_the_arguments_that_ran_and_the_edit(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    save_milk(script)
    card = harness.send_and_wait_for_card("Save a note called milk: buy milk")
    edit_and_run(harness, card, qtbot, EDITED)

    assert harness.desk.notes == {"milk": "buy oat milk"}
    values = [label.text() for label in card.arguments.findChildren(type(card.title))]
    assert values == ["title", "milk", "text", "buy oat milk"]
    assert card.edit_diff.isVisible()
    assert card.edit_diff.text() == "You changed:\n  text: buy milk → buy oat milk"
    assert card.entry is not None and card.entry.proposed == MILK


def test_a_waiting_card_counts_down_and_stands_still_while_the_user_edits(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    save_milk(script)
    card = harness.send_and_wait_for_card("Save a note called milk: buy milk")
    request = card.entry.countdown if card.entry else None
    assert request is not None and hasattr(request, "remaining")
    assert card.countdown.isVisible() and card.countdown.text().startswith("Denies itself in ")

    clock = FakeClock(272)
    card.entry.countdown = clock
    card.show_entry(card.entry)
    assert card.countdown.text() == "Denies itself in 4:32"

    qtbot.mouseClick(card.edit, LEFT)
    dialog = harness.window.findChild(EditArgumentsDialog)
    assert clock.paused and "Paused" in card.countdown.text()
    dialog.reject()
    assert not clock.paused
    clock.seconds = 271
    card.countdown.refresh()
    assert card.countdown.text() == "Denies itself in 4:31"

    card.entry.countdown = request
    card.show_entry(card.entry)
    qtbot.mouseClick(card.edit, LEFT)  # the real request pauses too
    assert request.paused
    harness.window.findChild(EditArgumentsDialog).reject()
    assert not request.paused
    harness.controller.stop()
    harness.wait_for_turn_end()
    assert not card.countdown.isVisible()


def test_deny_is_the_default_in_looks_as_well_as_keys(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    save_milk(script)
    card = harness.send_and_wait_for_card("Save a note called milk: buy milk")
    assert QApplication.focusWidget() is card.deny
    assert card.deny.isDefault() and card.deny.property("accent")
    assert not card.allow_once.property("accent") and not card.allow_once.isDefault()
    assert card.allow_once.text() == "Allow &once"
    harness.controller.stop()
    harness.wait_for_turn_end()


def test_a_malformed_call_shows_as_a_quiet_note() -> None:
    transcript = TranscriptModel()
    TurnPresenter(transcript).show(StepEvent(1, CallMalformed('{"name": ', "bad JSON")))
    (note,) = transcript.entries
    assert isinstance(note, NoticeEntry) and note.tone == "info"
    assert note.text == "The model tried to call a tool, but the call was not valid: bad JSON."


def test_an_answer_that_cannot_be_applied_leaves_the_card_usable_and_reports_once(
    harness: Harness, script: list[Reply], qtbot: Any, monkeypatch: Any
) -> None:
    save_milk(script)
    card = harness.send_and_wait_for_card("Save a note called milk: buy milk")
    request = harness.controller._pending[card.entry.call_id]
    shown: list[Any] = []
    harness.window.context.errors.error_shown.connect(lambda *args: shown.append(args))

    def refuse(answer: object) -> None:
        raise HearthError("cannot grant 'notes_add' on None: it does not cover this call")

    monkeypatch.setattr(request, "answer", refuse)
    qtbot.mouseClick(card.allow_once, LEFT)
    assert len(shown) == 1 and shown[0][0] == "apply your answer"
    assert card.entry.state is CardState.ASKING and card.buttons.isVisible()
    assert "Working" not in card.state.text() and not card.answer_note.isVisible()

    monkeypatch.undo()
    qtbot.mouseClick(card.allow_once, LEFT)  # the card still works
    harness.wait_for_turn_end()
    assert harness.desk.notes == {"milk": "buy milk"}


def test_a_failed_turn_settles_its_cards_without_claiming_an_answer() -> None:
    transcript = TranscriptModel()
    card = transcript.add_card(ToolCardEntry(call_id="c1", tool="notes_add"))
    transcript.update_card("c1", Answered("You allowed it once."))
    TurnPresenter(transcript).show(StepEvent(1, TurnFailed(HearthError("boom"))))
    assert card.state is CardState.DONE and card.answer == "" and card.outcome == "unknown"
    notices = [e for e in transcript.entries if isinstance(e, NoticeEntry)]
    assert len(notices) == 1


def test_a_call_no_rule_can_cover_offers_no_allow_for_and_says_why() -> None:
    from hearth import tool
    from hearth.agent import ConsentAsked, ConsentRequest, ToolProposed
    from hearth.consent import Verdict
    from hearth.messages import ToolCall
    from hearth.ruling import Reason

    @tool(effect="send", scope="to", scope_kind="recipient")
    def mail_send(to: str) -> str:
        """Send a message.

        Args:
            to: Who gets it.
        """
        return "sent"

    call = ToolCall("mail_send", {"to": "not an address"})
    verdict = Verdict("ask", Reason.NEEDS_APPROVAL, "sending needs your approval")
    request = ConsentRequest.build(call, mail_send, call.arguments, verdict)
    assert request.no_grant and not request.scopes
    transcript = TranscriptModel()
    presenter = TurnPresenter(transcript)
    presenter.show(StepEvent(1, ToolProposed(call, mail_send, None)))
    presenter.show(StepEvent(1, ConsentAsked(request)))
    card = transcript.card(call.id)
    assert card is not None and card.durations == ()
    assert "no rule can cover this call" in card.reason
