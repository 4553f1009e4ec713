"""The main window: side pages, keyboard use, the model indicator, and a clean close."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from hearth import HearthError
from hearth.ui.chat.entries import ReasoningEntry
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow, available_pages
from hearth.ui.pages import PageEntry
from hearth.ui.voice.input import VoiceState
from tests.ui.chat.kit import Desk, Harness, PausingModel, make_assistant, open_window
from tests.ui.conftest import save_screenshot

CTRL = Qt.KeyboardModifier.ControlModifier


class NotesPage(QWidget):
    title = "Notes"

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        QVBoxLayout(self).addWidget(QLabel("Your notes"))


class ModelsPage(QWidget):
    title = "Models"
    model_did_change = Signal(str)

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)


class BrokenPage(QWidget):
    title = "Broken"

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        raise HearthError("the accounts store is locked; close other Hearth windows")


@pytest.fixture
def pausing() -> PausingModel:
    return PausingModel("Thinking about it.", "Here you go.")


@pytest.fixture
def harness(qtbot: Any, pausing: PausingModel) -> Iterator[Harness]:
    desk = Desk()
    assistant = make_assistant(pausing, desk)
    try:
        yield from open_window(qtbot, assistant, desk)
    finally:
        assistant.close()


def test_side_pages_open_from_the_navigation_and_by_keyboard(qtbot: Any) -> None:
    desk = Desk()
    assistant = make_assistant(None, desk)
    context = UiContext(assistant)
    window = MainWindow(context, pages=[NotesPage, ModelsPage, BrokenPage])
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    navigation = window.navigation
    assert navigation.isVisible()
    titles = [navigation.item(row).text() for row in range(navigation.count())]
    assert titles == ["Chat", "Notes", "Models", "Broken"]

    qtbot.keyClick(window, Qt.Key.Key_2, CTRL)
    notes = window.stack.currentWidget()
    assert isinstance(notes, NotesPage) and notes.context is context
    qtbot.keyClick(window, Qt.Key.Key_1, CTRL)
    assert window.stack.currentWidget() is window.chat
    navigation.setCurrentRow(1)
    assert window.stack.currentWidget() is notes  # made once, then kept

    with qtbot.waitSignal(context.errors.error_shown) as shown:
        navigation.setCurrentRow(3)
    assert shown.args == ["open Broken", "the accounts store is locked; close other Hearth windows"]
    assert window.stack.currentWidget() is notes

    window.chat.show_first_run("No model yet.", can_open_models=True)
    qtbot.mouseClick(window.chat.banner.button, Qt.MouseButton.LeftButton)
    models = window.stack.currentWidget()
    assert isinstance(models, ModelsPage)
    models.model_did_change.emit("/models/new.gguf")
    assert window.chat.banner.isHidden()
    window.close()
    context.shutdown()
    assistant.close()


def test_every_real_page_opens_from_the_navigation(qtbot: Any) -> None:
    assistant = make_assistant(None, Desk())
    context = UiContext(assistant)
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.resize(1100, 760)
    window.show()
    qtbot.waitExposed(window)
    titles = [window.navigation.item(row).text() for row in range(window.navigation.count())]
    assert titles == ["Chat", *(page.title for page in available_pages())]
    with qtbot.assertNotEmitted(context.errors.error_shown):
        for row in range(1, window.navigation.count()):
            window.navigation.setCurrentRow(row)
            assert window.stack.currentWidget() is window.pages[titles[row]]
        window.navigation.setCurrentRow(0)
        qtbot.wait(200)
    save_screenshot(window, "main_window_with_pages")
    window.close()
    context.shutdown()
    assistant.close()


def test_without_pages_there_is_no_navigation(harness: Harness) -> None:
    assert not harness.window.navigation.isVisible()
    for page in available_pages():
        # Listed by title; each page's module is imported when the page is first opened.
        assert isinstance(page, PageEntry) and issubclass(page.page_class(), QWidget)
        assert page.page_class().title == page.title


def test_the_composer_is_keyboard_first(harness: Harness, qtbot: Any) -> None:
    composer = harness.chat.composer
    harness.window.conversations.search.setFocus()
    qtbot.keyClick(harness.window, Qt.Key.Key_L, CTRL)
    assert composer.editor.hasFocus()

    qtbot.keyClicks(composer.editor, "first line")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.editor, "second line")
    assert composer.text() == "first line\nsecond line" and not harness.controller.busy

    qtbot.keyClick(harness.window, Qt.Key.Key_T, CTRL)
    assert composer.use_tool.isChecked() and composer.tool_choice == "required"
    qtbot.keyClick(harness.window, Qt.Key.Key_T, CTRL)
    assert composer.tool_choice == "auto"

    qtbot.keyClick(composer.editor, Qt.Key.Key_Return, CTRL)  # Ctrl+Enter sends too
    assert harness.controller.busy and composer.text() == ""
    harness.controller.stop()
    harness.wait_for_turn_end()


def test_without_a_microphone_the_mic_button_is_off_and_says_why(
    harness: Harness, qtbot: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # No sound server answers, so PortAudio finds no input at all (as on a desktop without one).
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")
    voice = harness.chat.composer.voice
    harness.chat.voice.check()
    qtbot.waitUntil(lambda: harness.chat.voice.state is VoiceState.UNAVAILABLE, timeout=20_000)
    assert voice.isVisible() and not voice.isEnabled()
    assert "No microphone was found" in voice.toolTip()
    assert voice.accessibleDescription() == voice.toolTip()
    qtbot.mouseClick(voice, Qt.MouseButton.LeftButton)
    assert harness.chat.voice.state is VoiceState.UNAVAILABLE


def test_the_model_indicator_shows_model_quant_speed_and_context(
    harness: Harness, pausing: PausingModel, qtbot: Any
) -> None:
    status = harness.chat.status
    qtbot.waitUntil(lambda: status.full_text() == "pausing · Q8_0 · 0 / 4,096 tokens")
    pausing.resume.set()
    harness.type_and_send("Hello")
    harness.wait_for_turn_end()
    qtbot.waitUntil(lambda: "tok/s" in status.full_text())
    assert status.full_text().startswith("pausing · Q8_0 · ")
    assert status.full_text().endswith(" / 4,096 tokens") and "0 / 4,096" not in status.full_text()


def test_closing_the_window_mid_reply_stops_it_and_ends_the_inference_thread(
    harness: Harness, qtbot: Any
) -> None:
    harness.type_and_send("Hello")
    transcript = harness.controller.transcript
    qtbot.waitUntil(lambda: any(isinstance(e, ReasoningEntry) for e in transcript.entries))
    assert harness.controller.busy and harness.controller.thread_running
    harness.window.close()
    assert not harness.controller.thread_running
