"""F2 renames a conversation in a box as large as its row, where the whole title can be read."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QStyle, QStyleOptionFrame

from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot


def test_f2_opens_a_rename_box_the_size_of_the_row(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    script.append(Reply(text="Saved."))
    harness.type_and_send("Groceries for the weekend")
    harness.wait_for_turn_end()
    conversations = harness.window.conversations
    qtbot.waitUntil(lambda: conversations.model.rowCount() == 1)
    qtbot.waitUntil(lambda: conversations.list.currentIndex().isValid())
    # The list reloads (on the pool) once more after a turn, which would close the box.
    qtbot.waitUntil(lambda: harness.window.context.pool.activeThreadCount() == 0)
    QApplication.processEvents()

    qtbot.keyClick(harness.window, Qt.Key.Key_F2)
    editor = conversations.list.viewport().findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    qtbot.waitUntil(editor.hasFocus)
    save_screenshot(conversations, "conversation-rename")

    row = conversations.list.visualRect(conversations.list.currentIndex())
    assert editor.height() >= row.height()
    assert editor.height() >= editor.fontMetrics().height() + 8  # the text and some room
    option = QStyleOptionFrame()
    editor.initStyleOption(option)
    text_room = editor.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, editor)
    assert text_room.height() >= editor.fontMetrics().height()
    assert editor.width() >= row.width() - 2
    assert editor.text() == "Groceries for the weekend"
