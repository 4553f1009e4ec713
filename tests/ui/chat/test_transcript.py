"""The transcript model and view: streamed text, folding thinking, cards, and few relayouts."""

from __future__ import annotations

from typing import Any

from hearth import Decider, Reason, Ruling
from hearth.ui.chat.changes import Ran, Settled, StillAsking
from hearth.ui.chat.entries import (
    AnswerEntry,
    CardState,
    ReasoningEntry,
    ToolCardEntry,
    UndoState,
)
from hearth.ui.chat.transcript import ENTRY_ROLE, FLUSH_MS, TranscriptModel
from hearth.ui.chat.view import TranscriptView


def test_deltas_stream_into_one_row_each_and_thinking_folds_when_the_answer_starts(
    qtbot: Any,
) -> None:
    model = TranscriptModel()
    model.add_user("Why is the sky blue?")
    for word in ("Light ", "scatters ", "more ", "at ", "short ", "wavelengths."):
        model.stream_reasoning(word)
    thinking = model.entry(1)
    assert isinstance(thinking, ReasoningEntry)
    assert thinking.text == "Light scatters more at short wavelengths."
    assert thinking.live and not thinking.collapsed

    model.stream_answer("\n\n")  # whitespace alone starts nothing
    assert model.rowCount() == 2 and not thinking.collapsed
    for word in ("Rayleigh ", "scattering."):
        model.stream_answer(word)
    model.end_streams()

    assert model.rowCount() == 3
    assert thinking.collapsed and not thinking.live
    answer = model.entry(2)
    assert isinstance(answer, AnswerEntry) and answer.text == "Rayleigh scattering."
    assert model.data(model.index(2)) == "Rayleigh scattering."
    assert model.data(model.index(1), ENTRY_ROLE) is thinking


def test_streamed_text_is_announced_at_most_once_per_frame(qtbot: Any) -> None:
    model = TranscriptModel()
    model.stream_answer("Hello")
    changes: list[int] = []
    model.dataChanged.connect(lambda top, _bottom, _roles: changes.append(top.row()))
    for _ in range(200):
        model.stream_answer(" more")
    assert changes == []  # nothing yet: the flush timer has not fired
    qtbot.waitUntil(lambda: changes == [0], timeout=10 * FLUSH_MS)
    assert model.entry(0).text.endswith(" more" * 200)


def test_a_card_moves_through_its_states_in_place(qtbot: Any) -> None:
    model = TranscriptModel()
    model.stream_reasoning("I should save it.")
    card = model.add_card(ToolCardEntry(call_id="c1", tool="notes_add", arguments={"title": "a"}))
    assert isinstance(model.entry(0), ReasoningEntry) and model.entry(0).collapsed
    model.update_card("c1", StillAsking())
    assert card.state is CardState.ASKING
    ruling = Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once.")
    model.update_card("c1", Ran("executed", "saved", "saved", ruling, 3.0, undoable=True))
    assert model.rowCount() == 2
    assert model.card("c1") is card and card.state is CardState.DONE and card.result == "saved"
    assert card.summary == "saved" and card.undo is UndoState.AVAILABLE
    assert model.update_card("missing", Settled("gone")) is None


def test_the_view_grows_a_streaming_row_and_follows_the_end(qtbot: Any) -> None:
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(700, 300)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    model.add_user("Tell me a long story.")
    model.stream_answer("Once upon a time")
    qtbot.waitUntil(lambda: view.visualRect(model.index(1)).height() > 0)
    first_height = view.visualRect(model.index(1)).height()
    for _ in range(120):
        model.stream_answer(" there was a very long sentence that wraps")
    model.flush()
    qtbot.waitUntil(lambda: view.visualRect(model.index(1)).height() > 4 * first_height)
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())


def test_clicking_a_thinking_header_folds_and_unfolds_it(qtbot: Any) -> None:
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(700, 400)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    model.stream_reasoning("first " * 80)
    model.stream_answer("Done.")
    model.end_streams()
    thinking = model.entry(0)
    assert isinstance(thinking, ReasoningEntry) and thinking.collapsed
    view.executeDelayedItemsLayout()
    folded = view.visualRect(model.index(0))
    qtbot.mouseClick(view.viewport(), _left(), pos=folded.center())
    assert not thinking.collapsed
    qtbot.waitUntil(lambda: view.visualRect(model.index(0)).height() > 2 * folded.height())
    qtbot.mouseClick(view.viewport(), _left(), pos=folded.center())
    assert thinking.collapsed
    qtbot.waitUntil(lambda: view.visualRect(model.index(0)).height() == folded.height())


def _left() -> Any:
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton
