"""A card says "You changed" only for what the user changed, and shows Hearth's defaults as
defaults, live and when the conversation is opened again."""

from __future__ import annotations

from typing import Any

from hearth import AllowOnce, EditArguments, ToolRan
from hearth.agent import Executor
from hearth.messages import CancelToken, ToolCall
from hearth.store import UndoLog
from hearth.store.history import read_conversation
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.entries import ToolCardEntry
from hearth.ui.chat.history import history_entries
from hearth.ui.chat.presenter import TurnPresenter
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import StepEvent
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.app.agent.shelf import shelf_world
from tests.ui.chat.kit import shown_card
from tests.ui.conftest import save_screenshot

DEFAULT = "Filled in by Hearth: page = 1"
EDIT = "You changed:\n  words: story → poems"


def live_card(qtbot: Any, answer: Any) -> ToolCard:
    world = shelf_world()
    executor = Executor(world.registry, world.gate, world.audit, world.intents)
    call = ToolCall("shelf.search", {"words": "story"})
    steps = drive(executor.handle(call, None, CancelToken()), lambda _: answer)
    assert of(steps, ToolRan)[0].outcome == "executed"
    transcript = TranscriptModel()
    presenter = TurnPresenter(transcript)
    for step in steps:
        presenter.show(StepEvent(1, step))
    entry = transcript.card(call.id)
    assert entry is not None
    return shown_card(qtbot, entry)


def test_allow_once_with_no_edit_claims_no_change_and_names_the_default(qtbot: Any) -> None:
    card = live_card(qtbot, AllowOnce())
    assert card.edit_diff.text() == DEFAULT
    assert "You changed" not in card.edit_diff.text()


def test_an_edit_lists_only_what_the_user_changed(qtbot: Any) -> None:
    card = live_card(qtbot, EditArguments({"words": "poems", "page": 1}))
    assert card.edit_diff.text() == f"{EDIT}\n{DEFAULT}"
    card.resize(640, card.sizeHint().height())
    save_screenshot(card, "card_edit_and_default")


def test_a_reopened_conversation_shows_the_edit_that_ran_as_the_card_did(qtbot: Any) -> None:
    world = shelf_world()
    model = ScriptedModel([Reply(calls=[("shelf.search", {"words": "story"})]), Reply("Found.")])
    session = world.session(model)
    drive(session.run_turn("find the stories"), lambda _: EditArguments({"words": "poems"}))
    assert session.conversation_id is not None
    stored = read_conversation(
        world.conversations, world.audit, UndoLog(world.db), world.registry, session.conversation_id
    )
    (entry,) = [e for e in history_entries(stored) if isinstance(e, ToolCardEntry)]
    assert entry.arguments == {"words": "poems", "page": 1}  # what ran, not the model's call
    card = shown_card(qtbot, entry)
    assert card.edit_diff.text() == f"{EDIT}\n{DEFAULT}"
