"""`Dictation`: what stands in voice input's way, in the order a user fixes it, and one loaded
Whisper model, with the sound dropped as soon as it is transcribed."""

from __future__ import annotations

import ctypes.util
import sys
from pathlib import Path

import pytest

from hearth.engine.threads import physical_cores
from hearth.voice.audio import record_file
from hearth.voice.capture import MISSING_PACKAGE, MISSING_PORTAUDIO, NO_MICROPHONE
from hearth.voice.service import Dictation
from hearth.voice.settings import VoiceSettings, load_voice_settings
from hearth.voice.transcribe import MISSING_PACKAGES
from tests.app.voice.voice_fixtures import (
    espeak_wav,
    speech_model,
    word_error_rate,
)
from tests.connectors.system.audio_fixtures import AudioServer

SENTENCE = "Turn the volume down a little."


@pytest.fixture
def no_microphone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")


@pytest.mark.server
def test_ready_with_a_microphone_and_the_package_model(pulse_microphone: AudioServer) -> None:
    readiness = Dictation().readiness()
    assert readiness.ready and readiness.problem is None
    assert readiness.model is not None and readiness.model.path == speech_model()
    assert readiness.model.source == "package"


def test_no_microphone_comes_before_the_model(no_microphone: None) -> None:
    readiness = Dictation(VoiceSettings(language="any")).readiness()
    assert readiness.problem == NO_MICROPHONE  # plugging one in is the first thing to do


@pytest.mark.server
def test_a_missing_model_names_it_and_where_to_get_it(pulse_microphone: AudioServer) -> None:
    readiness = Dictation(VoiceSettings(language="any", size="base")).readiness()
    assert readiness.problem == (
        "The speech model Whisper base, any language is not installed. Download it on the"
        " Models page, under Voice input."
    )


def test_missing_packages_come_first(no_microphone: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)
    assert Dictation().readiness().problem == MISSING_PACKAGE
    monkeypatch.delitem(sys.modules, "sounddevice")
    real = ctypes.util.find_library
    monkeypatch.setattr(
        ctypes.util, "find_library", lambda name: None if "portaudio" in name else real(name)
    )
    assert Dictation().readiness().problem == MISSING_PORTAUDIO


@pytest.mark.server
def test_without_faster_whisper_it_says_what_to_install(
    pulse_microphone: AudioServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "faster_whisper", None)  # as if never installed
    assert Dictation().readiness().problem == MISSING_PACKAGES


def test_transcribing_drops_the_sound_and_keeps_the_model(tmp_path: Path) -> None:
    speech_model()
    dictation = Dictation()
    recording = record_file(espeak_wav(tmp_path / "said.wav", SENTENCE))
    assert recording.seconds > 1.0
    transcript = dictation.transcribe(recording)
    assert word_error_rate([SENTENCE], [transcript.text]) <= 0.25, transcript.text
    assert recording.seconds == 0.0 and recording.samples().size == 0  # nothing kept
    assert dictation.transcriber() is dictation.transcriber()  # loaded once


def test_the_window_leaves_a_core_for_itself() -> None:
    speech_model()
    cores = physical_cores()
    assert Dictation(window=True).transcriber().threads == max(1, cores - 1)
    assert Dictation(window=False).transcriber().threads == cores


def test_settings_are_saved_and_read_back() -> None:
    dictation = Dictation()
    assert dictation.settings == VoiceSettings()  # English, tiny, reviewed, default mic
    chosen = VoiceSettings(language="any", size="base", send_at_once=True, microphone="pulse")
    dictation.update(chosen)
    assert load_voice_settings() == chosen
    assert Dictation().settings == chosen
