"""The composer and the chat header as the user sees them: text, Stop, notices, narrow windows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint
from pytestqt.qtbot import QtBot

from hearth.ui.chat.composer import Composer
from hearth.ui.chat.controller import NO_MODEL
from hearth.ui.chat.entries import NoticeEntry
from tests.ui.chat.kit import Desk, Harness, make_assistant, open_window
from tests.ui.conftest import save_screenshot

LONG = "please find the invoice from the plumber that arrived last week and " * 3


def test_a_message_that_wraps_while_typed_keeps_its_first_line_in_view(
    harness: Harness, qtbot: QtBot
) -> None:
    editor = harness.chat.composer.editor
    for character in LONG:  # typed key by key in the real window, as the user does
        qtbot.keyClick(editor, character)
    assert editor.document().size().height() >= 2  # it did wrap
    qtbot.waitUntil(lambda: editor.height() >= editor.sizeHint().height())
    assert editor.verticalScrollBar().value() == 0
    cursor = editor.textCursor()
    cursor.setPosition(0)
    assert editor.viewport().rect().contains(editor.cursorRect(cursor).topLeft() + QPoint(1, 1))


def test_stop_looks_disabled_while_idle(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    qtbot.waitExposed(composer)
    assert not composer.stop.isEnabled()
    idle = composer.stop.grab().toImage()
    composer.set_busy(True)
    assert composer.stop.isEnabled()
    assert composer.stop.grab().toImage() != idle


@pytest.fixture
def no_model(qtbot: QtBot, desk: Desk) -> Iterator[Harness]:
    assistant = make_assistant(None, desk)
    try:
        yield from open_window(qtbot, assistant, desk)
    finally:
        assistant.close()


def test_sending_twice_without_a_model_shows_one_notice(no_model: Harness) -> None:
    no_model.type_and_send("hello")
    no_model.type_and_send("hello")
    notices = [e for e in no_model.controller.transcript.entries if isinstance(e, NoticeEntry)]
    assert [n.text for n in notices] == [NO_MODEL]


def test_the_title_stays_at_the_minimum_window_size(harness: Harness) -> None:
    window = harness.window
    harness.controller.conversation_did_change.emit(1, "Plumber invoice from last week")
    chip = harness.chat.status
    chip._show("SmolLM2 135M Instruct · Q4_1 · 92 tok/s (computer busy) · 812 / 8,192 tokens")
    harness.qtbot.waitUntil(lambda: chip.text() == chip.full_text())  # whole where it fits
    window.resize(window.minimumSize())
    harness.qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    save_screenshot(window, "chat-minimum-size")
    title = harness.chat.title
    assert title.width() >= title.fontMetrics().horizontalAdvance("Plumber…")
    assert title.text().startswith("Plumber")
    # The chip gives way with a clean "…", never cut mid-letter, and keeps the whole in full_text.
    assert chip.text().endswith("…") and chip.text() != chip.full_text()
    assert chip.fontMetrics().horizontalAdvance(chip.text()) <= chip.contentsRect().width()
