"""Screenshots of every card state, light and dark, for review (build/screenshots)."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtWidgets import QApplication

from hearth import list_summary, summary_of
from hearth.agent import CallMalformed
from hearth.ruling import Decider, Reason, Ruling
from hearth.ui import theme
from hearth.ui.chat.entries import CardState, ToolCardEntry
from hearth.ui.chat.worker import StepEvent
from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot

FOUND = json.dumps({"files": [{"path": "notes/a.md"}, {"path": "b.txt"}, {"path": "c.md"}]})


def done_card(
    call_id: str, tool: str, arguments: dict, outcome: str, **fields: Any
) -> ToolCardEntry:
    # As the presenter fills it from ToolRan.summary: the core's reading of the result.
    fields.setdefault("summary", summary_of(fields.get("result", "")))
    return ToolCardEntry(
        call_id=call_id,
        tool=tool,
        arguments=arguments,
        state=CardState.DONE,
        outcome=outcome,
        **fields,
    )


def finished_cards() -> list[ToolCardEntry]:
    by_rule = Ruling(
        True, Decider.RULE, Reason.RULE_ALLOWS, "read", "r1", "files_search in ~/Notes"
    )
    return [
        done_card(
            "s1",
            "files_search",
            {"query": "notes"},
            "executed",
            effect="read",
            result=FOUND,
            summary=list_summary(["a.md", "b.txt", "c.md"], "result", "results"),
            ruling=by_rule,
            duration_ms=12,
        ),
        done_card(
            "s2",
            "notes_add",
            {"title": "milk", "text": "buy oat milk"},
            "executed",
            effect="write",
            proposed={"title": "milk", "text": "buy milk"},
            answer="You edited the arguments and allowed it.",
            result="saved the note 'milk'",
            duration_ms=3,
            ruling=Ruling(True, Decider.USER, Reason.EDITED, "edited"),
        ),
        done_card(
            "s3",
            "mail_send",
            {"to": "bob@example.com", "subject": "Hi"},
            "denied",
            effect="send",
            answer="You denied it.",
            result="Denied: the user said no",
            ruling=Ruling(False, Decider.USER, Reason.DENIED, "the user said no"),
        ),
        done_card(
            "s4",
            "volume_set",
            {"level": 40},
            "failed",
            effect="write",
            answer="You allowed it once.",
            result="The speaker is not connected.",
            ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "once"),
        ),
    ]


def test_screenshots_of_every_card_state_in_light_and_dark(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    transcript = harness.controller.transcript
    for card in finished_cards():
        transcript.add_card(card)
    harness.controller.presenter.show(
        StepEvent(0, CallMalformed('{"name": "notes_add", "arguments": {', "not valid JSON"))
    )
    script += [Reply(calls=[("notes_add", {"title": "milk", "text": "buy milk"})])]
    card = harness.send_and_wait_for_card("Save a note called milk: buy milk")
    harness.card("s1").result_view.toggle.setChecked(True)
    app = QApplication.instance()
    try:
        for name in ("light", "dark"):
            theme.apply_theme(app, theme.DARK if name == "dark" else theme.LIGHT)
            harness.window.refresh_icons()
            harness.window.resize(1100, 1400)
            qtbot.wait(150)
            harness.chat.view.scrollToBottom()
            qtbot.wait(100)
            assert card.countdown.isVisible()
            save_screenshot(harness.window, f"tool_cards_all_states_{name}")
    finally:
        theme.apply_theme(app, theme.LIGHT)
        harness.controller.stop()
        harness.wait_for_turn_end()
