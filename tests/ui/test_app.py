"""The desktop app around the window: the model loading behind it, first run, tray, quick ask.

`hearth` itself is launched end to end in tests/ui/test_launch.py.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from hearth.assistant import Assistant
from hearth.errors import ModelNotFoundError
from hearth.generation import ChatModel
from hearth.models import ThreadPolicy
from hearth.ui.app import FIRST_RUN, load_installed_model, start_loading_model
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.tray import LONG_TASK_S, Tray
from tests.ui.chat.kit import Desk, PausingModel, make_assistant
from tests.ui.conftest import save_screenshot
from tests.ui.test_main_window import ModelsPage


@pytest.fixture
def window(qtbot: Any) -> Any:
    assistant = make_assistant(None, Desk())
    context = UiContext(assistant)
    window = MainWindow(context, pages=[ModelsPage])
    qtbot.addWidget(window)
    window.resize(1000, 680)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()
    context.shutdown()
    assistant.close()


def test_without_an_installed_model_the_chat_points_to_the_models_page(
    window: MainWindow, qtbot: Any
) -> None:
    def no_model(_assistant: Assistant) -> ChatModel:
        raise ModelNotFoundError("No model is installed.")

    start_loading_model(window, window.context, no_model)
    assert window.chat.status.full_text() == "Loading model…"
    qtbot.waitUntil(window.chat.banner.isVisible)
    assert window.chat.banner.message.text() == FIRST_RUN
    assert window.chat.status.full_text() == "No model loaded"
    save_screenshot(window, "first_run")
    window.chat.banner.button.click()
    assert isinstance(window.stack.currentWidget(), ModelsPage)


def test_a_model_loaded_in_the_background_is_announced(window: MainWindow, qtbot: Any) -> None:
    model = PausingModel("", "")

    def load(assistant: Assistant) -> ChatModel:
        assistant.use_model(model)
        return model

    start_loading_model(window, window.context, load)
    qtbot.waitUntil(lambda: window.chat.status.full_text().startswith("pausing · Q8_0"))
    assert window.context.assistant.model is model
    assert window.chat.banner.isHidden()


def test_the_tray_notifies_about_long_replies_and_waiting_cards_when_unwatched(
    window: MainWindow, qtbot: Any
) -> None:
    tray = Tray(window)
    window.hide()  # the user is looking at something else
    with qtbot.waitSignal(tray.notified) as notified:
        window.controller.turn_did_finish.emit(LONG_TASK_S + 2, "Your   packing list\nis ready.")
    assert notified.args == ["Hearth has finished", "Your packing list is ready."]

    with qtbot.assertNotEmitted(tray.notified):
        window.controller.turn_did_finish.emit(LONG_TASK_S - 5, "Quick one.")
    tray.hide()


def test_quick_ask_sends_a_new_conversation_and_shows_the_reply(qtbot: Any) -> None:
    desk = Desk()
    model = PausingModel("Short thought.", "Ten past four.")
    model.resume.set()
    assistant = make_assistant(model, desk)
    context = UiContext(assistant)
    window = MainWindow(context, pages=[])
    qtbot.addWidget(window)
    tray = Tray(window)
    tray.quick_ask.toggle()
    qtbot.waitExposed(tray.quick_ask)
    qtbot.keyClicks(tray.quick_ask.question, "What time is it?")
    with qtbot.waitSignal(window.controller.turn_did_finish):
        qtbot.keyClick(tray.quick_ask.question, "\r")
    assert tray.quick_ask.view.model() is window.controller.transcript
    assert window.controller.transcript.entries[-1].copy_text == "Ten past four."
    assert tray.quick_ask.question.text() == ""
    tray.hide()
    window.close()
    context.shutdown()
    assistant.close()


@pytest.mark.model
def test_the_installed_model_loads_with_a_core_left_for_the_window(test_gguf: Any) -> None:
    assistant = make_assistant(None, Desk())
    try:
        model = load_installed_model(assistant)
        assert assistant.model is model
        assert getattr(model, "threads", None) == ThreadPolicy.automatic()
    finally:
        assistant.close()


RESTART_PORTAUDIO_WHILE_PRINTING = """
import sys, threading, time
from hearth.ui.app import keep_stderr
keep_stderr()
import sounddevice
stop = threading.Event()
def restart():
    while not stop.is_set():
        sounddevice._terminate()
        sounddevice._initialize()
worker = threading.Thread(target=restart)
worker.start()
for n in range(300):
    print(f"line {n}", file=sys.stderr)
    time.sleep(0.002)
stop.set()
worker.join()
"""


def test_portaudio_starting_on_a_worker_never_silences_what_the_window_prints() -> None:
    """sounddevice points fd 2 at /dev/null while PortAudio starts (the window's microphone
    check, on a worker). Without `keep_stderr`, 19 of these 300 lines arrived here."""
    done = subprocess.run(
        [sys.executable, "-c", RESTART_PORTAUDIO_WHILE_PRINTING],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    printed = [line for line in done.stderr.splitlines() if line.startswith("line ")]
    assert printed == [f"line {n}" for n in range(300)]
