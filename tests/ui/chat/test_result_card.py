"""A typed result's card reads as the core's summary, live and reloaded from history; the raw
text the model read is one click away, and nothing in the UI parses it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from hearth import AllowOnce, StoredConversation, ToolProposed, ToolRan
from hearth.agent import Executor
from hearth.messages import CancelToken, ToolCall
from hearth.store import UndoLog
from hearth.store.history import read_conversation
from hearth.ui.chat.entries import ToolCardEntry
from hearth.ui.chat.history import history_entries
from hearth.ui.chat.presenter import TurnPresenter, card_for
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import StepEvent
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.app.agent.shelf import shelf_world
from tests.ui.chat.kit import shown_card

SIXTY = "60 results: a.md, b.txt, c.pdf, …"


def test_a_60_item_result_s_card_reads_as_its_summary_not_its_json(qtbot: Any) -> None:
    world = shelf_world()
    executor = Executor(world.registry, world.gate, world.audit, world.intents)
    call = ToolCall("shelf.search", {"words": "story"})
    steps = drive(executor.handle(call, None, CancelToken()), lambda _: AllowOnce())
    (ran,) = of(steps, ToolRan)
    assert "call again with page=2" in ran.result  # the model's text was cut

    transcript = TranscriptModel()
    presenter = TurnPresenter(transcript)
    for step in steps:
        presenter.show(StepEvent(1, step))
    entry = transcript.card(call.id)
    assert entry is not None
    card = shown_card(qtbot, entry)
    text = card.result.text()
    assert text == f"✓  {SIXTY}"
    assert "{" not in text and '"' not in text
    details = card.result_view.details
    assert card.result_view.toggle.isVisible() and not details.isVisible()
    qtbot.mouseClick(card.result_view.toggle, Qt.MouseButton.LeftButton)
    assert details.isVisible() and "call again with page=2 for more" in details.text()


def test_a_reopened_conversation_shows_the_summary_the_card_showed(qtbot: Any) -> None:
    world = shelf_world()
    model = ScriptedModel([Reply(calls=[("shelf.search", {"words": "story"})]), Reply("Found.")])
    session = world.session(model)
    drive(session.run_turn("find the stories"), lambda _: AllowOnce())
    assert session.conversation_id is not None
    stored: StoredConversation = read_conversation(
        world.conversations, world.audit, UndoLog(world.db), world.registry, session.conversation_id
    )
    (entry,) = [e for e in history_entries(stored) if isinstance(e, ToolCardEntry)]
    assert entry.summary == SIXTY and entry.outcome == "executed"
    card = shown_card(qtbot, entry)
    assert card.result.text() == f"✓  {SIXTY}"


def test_a_refused_call_s_card_reads_as_its_refusal(qtbot: Any) -> None:
    world = shelf_world()
    # No one to ask for a correction, so it is refused before the gate.
    executor = Executor(world.registry, world.gate, world.audit, world.intents, interactive=False)
    call = ToolCall("shelf.search", {"words": 3})  # not a string
    steps = drive(executor.handle(call, None, CancelToken()), None)
    (ran,) = of(steps, ToolRan)
    transcript = TranscriptModel()
    transcript.add_card(card_for(of(steps, ToolProposed)[0]))
    TurnPresenter(transcript).show(StepEvent(1, ran))
    entry = transcript.card(call.id)
    assert entry is not None and entry.summary == ran.summary
    assert ran.summary.startswith("Error: Invalid arguments for shelf.search")
    card = shown_card(qtbot, entry)
    # Said once: the ruling's sentence, not again as the model's "Error: …" line.
    assert card.result.text().count("Invalid arguments for shelf.search") == 1
    assert card.result.text().startswith("Refused automatically (Invalid arguments")
    assert not card.result_view.toggle.isVisible()  # the summary says it all
