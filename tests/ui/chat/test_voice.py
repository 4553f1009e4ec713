"""Push-to-talk in the composer, end to end: a real PulseAudio server whose default input hears
what `paplay` plays, PortAudio through sounddevice, and the real Whisper tiny.en model.

espeak-ng speaks the sentence; nothing here stands in for the microphone but the sound server.
"""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from hearth.ui.tray import QuickAsk
from hearth.ui.voice.input import HEARD_NOTHING, OTHER_WINDOW, VoiceState
from hearth.voice.settings import VoiceSettings
from tests.app.agent.scripted import Reply
from tests.app.voice.voice_fixtures import (
    after_silence,
    espeak_wav,
    playing,
    speech_model,
    word_error_rate,
)
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot

pytestmark = pytest.mark.server

SENTENCE = "Move my dentist appointment to Friday afternoon."
LEAD_S = 2.5  # the test server's null sink may drop the first moments of a new recording
WAIT_MS = 60_000  # two slow cores: model load, PortAudio start, transcription


@pytest.fixture
def spoken(tmp_path: Path) -> Path:
    return after_silence(espeak_wav(tmp_path / "spoken.wav", SENTENCE), LEAD_S)


@pytest.fixture
def ready(pulse_microphone: Any, harness: Harness) -> Harness:
    """The window once its voice check found the microphone and the package's tiny.en model."""
    speech_model()
    button = harness.chat.composer.voice
    harness.qtbot.waitUntil(lambda: harness.chat.voice.state is VoiceState.IDLE, timeout=WAIT_MS)
    assert button.isEnabled(), button.toolTip()
    return harness


def say_while_held(harness: Harness, wav: Path) -> None:
    """Press the mic, play the sentence into the microphone, wait for it to end, release."""
    chat, qtbot = harness.chat, harness.qtbot
    button = chat.composer.voice
    QTest.mousePress(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.RECORDING, timeout=WAIT_MS)
    with playing(wav) as player:
        qtbot.waitUntil(lambda: chat.composer.voice_strip.meter.level > 0.3, timeout=WAIT_MS)
        save_screenshot(harness.window, "voice_listening")
        qtbot.waitUntil(lambda: player.poll() is not None, timeout=WAIT_MS)
    QTest.mouseRelease(button, Qt.MouseButton.LeftButton)


def test_holding_the_mic_puts_what_was_said_in_the_composer(ready: Harness, spoken: Path) -> None:
    chat = ready.chat
    ready.qtbot.keyClicks(chat.composer.editor, "Please")
    say_while_held(ready, spoken)
    ready.qtbot.waitUntil(lambda: chat.voice.state is VoiceState.TRANSCRIBING, timeout=WAIT_MS)
    ready.qtbot.waitUntil(lambda: chat.voice.state is VoiceState.IDLE, timeout=WAIT_MS)
    text = chat.composer.text()
    assert text.startswith("Please ")
    assert word_error_rate([SENTENCE], [text.removeprefix("Please ")]) <= 0.34, text
    # For review: nothing was sent, the strip is gone and the keyboard is back in the box.
    assert ready.controller.transcript.entries == []
    assert not chat.composer.voice_strip.isVisible()
    assert chat.composer.editor.hasFocus()
    save_screenshot(ready.window, "voice_transcribed")


def test_a_short_click_keeps_listening_until_the_next_click(ready: Harness, spoken: Path) -> None:
    chat, qtbot = ready.chat, ready.qtbot
    button = chat.composer.voice
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.RECORDING, timeout=WAIT_MS)
    with playing(spoken) as player:
        qtbot.waitUntil(lambda: player.poll() is not None, timeout=WAIT_MS)
    assert chat.voice.state is VoiceState.RECORDING  # the release of a click does not end it
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(chat.composer.text()), timeout=WAIT_MS)
    text = chat.composer.text()
    assert word_error_rate([SENTENCE], [text]) <= 0.34
    assert text[0].isupper()  # a message's first word, whatever case Whisper wrote it in


def test_escape_cancels_and_keeps_nothing(ready: Harness) -> None:
    chat, qtbot = ready.chat, ready.qtbot
    chat.composer.editor.setFocus()
    qtbot.keyClick(
        chat.composer.editor,
        Qt.Key.Key_Space,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.RECORDING, timeout=WAIT_MS)
    assert chat.composer.voice_strip.isVisible()
    qtbot.keyClick(chat.composer.editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.IDLE, timeout=WAIT_MS)
    assert chat.composer.text() == ""
    assert not chat.composer.voice_strip.isVisible()


def test_silence_is_reported_not_transcribed(ready: Harness) -> None:
    chat, qtbot = ready.chat, ready.qtbot
    QTest.mouseClick(chat.composer.voice, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.RECORDING, timeout=WAIT_MS)
    qtbot.wait(600)  # the null sink plays nothing: digital silence
    with qtbot.waitSignal(chat.voice.said, timeout=WAIT_MS) as said:
        QTest.mouseClick(chat.composer.voice, Qt.MouseButton.LeftButton)
    assert said.args == [HEARD_NOTHING]
    assert chat.composer.text() == ""
    assert chat.hint.text() == HEARD_NOTHING


@pytest.mark.parametrize("script", [[Reply(text="Done.")]])
def test_send_at_once_sends_the_transcript(
    ready: Harness, spoken: Path, script: list[Reply]
) -> None:
    context = ready.window.context
    context.voice.save_settings(VoiceSettings(send_at_once=True))
    say_while_held(ready, spoken)

    def sent() -> list[Any]:
        return [entry for entry in ready.controller.transcript.entries if hasattr(entry, "text")]

    # The message itself, not `busy`: a scripted reply can end before a poll sees it busy.
    ready.qtbot.waitUntil(lambda: bool(sent()), timeout=WAIT_MS)
    ready.wait_for_turn_end()
    assert ready.chat.composer.text() == ""  # sent, so the box is empty again
    assert word_error_rate([SENTENCE], [sent()[0].text]) <= 0.34


def test_without_the_chosen_model_the_button_is_off_and_says_why(
    pulse_microphone: Any, harness: Harness
) -> None:
    chat = harness.chat
    harness.window.context.voice.save_settings(VoiceSettings(language="any", size="base"))
    harness.window.context.voice_did_change.emit()
    harness.qtbot.waitUntil(lambda: chat.voice.state is VoiceState.UNAVAILABLE, timeout=WAIT_MS)
    button = chat.composer.voice
    assert not button.isEnabled()
    assert "not installed" in button.toolTip() and "Models page" in button.toolTip()
    save_screenshot(chat.composer, "voice_unavailable")


def test_the_quick_ask_window_listens_too(ready: Harness, spoken: Path) -> None:
    qtbot = ready.qtbot
    quick = QuickAsk(ready.controller, ready.window.context)
    qtbot.addWidget(quick)
    quick.toggle()
    qtbot.waitUntil(lambda: quick.voice.state is VoiceState.IDLE, timeout=WAIT_MS)
    QTest.mouseClick(quick.mic, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: quick.voice.state is VoiceState.RECORDING, timeout=WAIT_MS)
    # One microphone, one listener: the main window's mic declines while this one listens.
    with qtbot.waitSignal(ready.chat.voice.said) as said:
        ready.chat.voice.start()
    assert said.args == [OTHER_WINDOW]
    with playing(spoken) as player:
        qtbot.waitUntil(lambda: quick.voice_strip.meter.level > 0.3, timeout=WAIT_MS)
        save_screenshot(quick, "voice_quick_ask")
        qtbot.waitUntil(lambda: player.poll() is not None, timeout=WAIT_MS)
    QTest.mouseClick(quick.mic, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(quick.question.text()), timeout=WAIT_MS)
    assert word_error_rate([SENTENCE], [quick.question.text()]) <= 0.34
    assert ready.controller.transcript.entries == []  # for review, not sent
    quick.hide()


def test_without_portaudio_the_button_is_off_and_says_what_to_install(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat, qtbot = harness.chat, harness.qtbot
    qtbot.waitUntil(lambda: chat.voice.state is not VoiceState.CHECKING, timeout=WAIT_MS)
    real = ctypes.util.find_library  # the real import then fails as it does without the library
    monkeypatch.setattr(
        ctypes.util, "find_library", lambda name: None if "portaudio" in name else real(name)
    )
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    chat.voice.check()
    button = chat.composer.voice
    qtbot.waitUntil(lambda: "PortAudio" in button.toolTip(), timeout=WAIT_MS)
    assert not button.isEnabled() and "libportaudio2" in button.toolTip()
    chat.voice.toggle()  # the shortcut, too, only says why
    assert chat.hint.text() == chat.voice.problem


def test_a_microphone_that_vanishes_ends_the_recording_without_a_crash(ready: Harness) -> None:
    chat, qtbot = ready.chat, ready.qtbot
    QTest.mouseClick(chat.composer.voice, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.RECORDING, timeout=WAIT_MS)
    qtbot.wait(300)
    subprocess.run(["pactl", "unload-module", "module-null-sink"], check=True, timeout=10)
    qtbot.waitUntil(lambda: chat.voice.state is VoiceState.IDLE, timeout=WAIT_MS)
    assert chat.hint.text() == HEARD_NOTHING  # what was recorded (silence) was still read
    assert not chat.composer.voice_strip.isVisible()


def test_a_cancelled_transcript_never_lands_even_in_the_next_recording(
    ready: Harness, spoken: Path
) -> None:
    chat, qtbot = ready.chat, ready.qtbot
    say_while_held(ready, spoken)
    assert chat.voice.state is VoiceState.TRANSCRIBING
    chat.voice.cancel()
    QTest.mouseClick(chat.composer.voice, Qt.MouseButton.LeftButton)  # talk again at once
    assert chat.voice.state is VoiceState.RECORDING
    qtbot.wait(3000)  # the first transcription has long finished on the pool
    assert chat.voice.state is VoiceState.RECORDING
    assert chat.composer.text() == ""
    chat.voice.cancel()
