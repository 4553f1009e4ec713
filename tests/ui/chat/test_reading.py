"""While the model reads its prompt, the pending reply says so, with how far it has got."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor

from hearth.generation import (
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    PromptProgress,
)
from hearth.messages import CancelToken, Message, ToolSpec
from hearth.ui import theme
from hearth.ui.chat.entries import ReadingEntry, UserEntry
from hearth.ui.chat.rows import READING_BAR
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.ui.chat.kit import Desk, Harness, make_assistant, open_window
from tests.ui.conftest import save_screenshot

TOTAL, BATCH, HOLD = 2560, 512, 1024  # the model stops at 40% until the test lets it go on
LEFT = Qt.MouseButton.LeftButton


class ReadingModel:
    """Reads each prompt in batches, saying so; at `HOLD` tokens it waits for the test to
    release it, then replies as the scripted model does (a scripted model)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.inner = ScriptedModel(replies)
        self.info = self.inner.info
        self.release = threading.Semaphore(0)

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        cancel = cancel or CancelToken()
        for read in range(0, TOTAL + 1, BATCH):
            yield PromptProgress(read, TOTAL)
            if read == HOLD:
                while not self.release.acquire(timeout=0.01):
                    if cancel.cancelled:
                        yield GenerationDone(Message.assistant(), "cancelled", GenerationStats())
                        return
        yield from self.inner.generate(messages, tools, settings, cancel)

    def close(self) -> None:
        self.release.release(100)


@pytest.fixture
def reading_model(script: list[Reply]) -> ReadingModel:
    return ReadingModel(script)


@pytest.fixture
def reader(qtbot: Any, desk: Desk, reading_model: ReadingModel) -> Iterator[Harness]:
    assistant = make_assistant(reading_model, desk)
    try:
        yield from open_window(qtbot, assistant, desk)
    finally:
        assistant.close()


def wait_for_reading(harness: Harness, qtbot: Any, read: int) -> ReadingEntry:
    def held() -> bool:
        entries = harness.controller.transcript.entries
        return isinstance(entries[-1], ReadingEntry) and entries[-1].read == read

    qtbot.waitUntil(held, timeout=10_000)
    harness.controller.transcript.flush()
    entry = harness.controller.transcript.entries[-1]
    assert isinstance(entry, ReadingEntry)
    return entry


def accent_run(harness: Harness, entry: ReadingEntry) -> int:
    """How many pixels of the row's progress bar are filled, read off the drawn view."""
    view = harness.chat.view
    rect = view.visualRect(harness.controller.transcript.index_of(entry))
    image = view.viewport().grab().toImage()
    accent = theme.current().color("accent")
    scale = image.devicePixelRatio()
    best = 0
    for y in range(rect.top(), rect.bottom() + 1):
        row = [
            QColor(image.pixel(QPoint(round(x * scale), round(y * scale)))) == accent
            for x in range(rect.left(), rect.right() + 1)
        ]
        best = max(best, sum(row))
    return best


def test_the_pending_reply_says_how_far_the_prompt_is_read_until_the_answer_starts(
    reader: Harness, reading_model: ReadingModel, script: list[Reply], qtbot: Any
) -> None:
    script.append(Reply(text="The tide turns twice a day."))
    reader.type_and_send("When does the tide turn?")
    entry = wait_for_reading(reader, qtbot, HOLD)

    transcript, view = reader.controller.transcript, reader.chat.view
    index = transcript.index_of(entry)
    assert index.data(Qt.ItemDataRole.DisplayRole) == "Reading your message… 40%"
    assert index.data(Qt.ItemDataRole.AccessibleTextRole) == "Reading your message… 40%"
    user = transcript.index_of(next(e for e in transcript.entries if isinstance(e, UserEntry)))
    row, bubble = view.visualRect(index), view.visualRect(user)
    assert row.top() >= bubble.bottom() and row.height() >= view.fontMetrics().height()
    assert view.viewport().rect().contains(row)  # in view, under the user's bubble
    qtbot.waitUntil(lambda: accent_run(reader, entry) == round(READING_BAR[0] * 0.4))
    save_screenshot(reader.window, "reading_prompt")

    reading_model.release.release()
    reader.wait_for_turn_end()
    # The Thoughts row keeps the offered tools' line; the reading row has gone.
    assert reader.kinds() == ["UserEntry", "ReasoningEntry", "AnswerEntry"]
    assert transcript.rowCount() == 3


def test_after_a_tool_ran_the_pending_reply_reads_its_result(
    reader: Harness, reading_model: ReadingModel, script: list[Reply], qtbot: Any
) -> None:
    reader.desk.notes["tide"] = "High tide at 14:10."
    script += [Reply(calls=[("notes_read", {"title": "tide"})]), Reply(text="At 14:10.")]
    reading_model.release.release()  # the message is read at once; the tool's result is held
    card = reader.send_and_wait_for_card("When is high tide? It is in my notes.")
    qtbot.mouseClick(card.allow_once, LEFT)

    entry = wait_for_reading(reader, qtbot, HOLD)
    assert entry.copy_text == "Reading the results… 40%"
    assert reader.kinds()[-2:] == ["ToolCardEntry", "ReadingEntry"]
    reading_model.release.release()
    reader.wait_for_turn_end()
    assert "ReadingEntry" not in reader.kinds() and reader.kinds()[-1] == "AnswerEntry"


def test_stop_while_reading_takes_the_pending_reply_away(
    reader: Harness, script: list[Reply], qtbot: Any
) -> None:
    script.append(Reply(text="never shown"))
    reader.type_and_send("Summarise this long text for me.")
    wait_for_reading(reader, qtbot, HOLD)
    reader.controller.stop()
    reader.wait_for_turn_end()
    assert reader.kinds() == ["UserEntry", "ReasoningEntry", "NoticeEntry"]
