"""The microphone, through the real PortAudio and a real PulseAudio server.

The server's default input is its null sink's monitor, so what `paplay` plays into the sink is
what the microphone hears: an espeak-ng sentence, transcribed by the real tiny.en model.
"""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from hearth.voice import capture
from hearth.voice.audio import SAMPLE_RATE, write_wav
from hearth.voice.capture import (
    GONE_MICROPHONE,
    MISSING_PACKAGE,
    MISSING_PORTAUDIO,
    NO_MICROPHONE,
    Microphone,
    input_devices,
    load_sounddevice,
    microphone_problem,
)
from hearth.voice.errors import RecordingError, VoiceUnavailable
from hearth.voice.transcribe import Transcriber
from tests.app.voice.voice_fixtures import (
    espeak_wav,
    playing,
    shared_transcriber,
    word_error_rate,
)
from tests.connectors.system.audio_fixtures import AudioServer

SENTENCE = "Remind me to call the dentist tomorrow morning."


@pytest.fixture
def transcriber() -> Transcriber:
    return shared_transcriber()


def wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize(
    "module", ["hearth.voice.capture", "hearth.voice.service", "hearth.cli.main"]
)
def test_importing_voice_loads_neither_portaudio_nor_whisper(module: str) -> None:
    # The window and `hearth --help` start without them; they load when the mic is first used.
    heavy = ["sounddevice", "faster_whisper", "ctranslate2", "av"]
    probe = f"import sys, {module}; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.server
def test_lists_the_pulse_input_and_one_default(pulse_microphone: AudioServer) -> None:
    devices = input_devices()
    names = [device.name for device in devices]
    assert "pulse" in names
    assert sum(device.is_default for device in devices) == 1
    assert all(device.channels > 0 and device.default_rate > 0 for device in devices)
    assert microphone_problem("pulse") is None
    assert microphone_problem(None) is None


@pytest.mark.server
@pytest.mark.model
def test_records_and_transcribes_a_sentence(
    pulse_microphone: AudioServer, transcriber: Transcriber, tmp_path: Path
) -> None:
    wav = espeak_wav(tmp_path / "say.wav", SENTENCE)
    microphone = Microphone("pulse")
    recording = microphone.start()
    with playing(wav) as player:
        assert player.wait(timeout=20) == 0
    time.sleep(0.3)  # the sink's last block reaches the monitor
    assert microphone.active
    assert microphone.stop() is recording
    assert not microphone.active
    assert microphone.stop() is recording  # stopping again changes nothing
    assert recording.peak > 0.1
    assert 2.5 < recording.seconds < 10
    text = transcriber.transcribe(recording.samples()).text
    print(f"heard: {text!r}")
    assert word_error_rate([SENTENCE], [text]) <= 0.25


@pytest.mark.server
def test_the_default_input_hears_a_tone(pulse_microphone: AudioServer, tmp_path: Path) -> None:
    tone = tmp_path / "tone.wav"
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    write_wav(tone, (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32))
    with Microphone() as microphone, playing(tone) as player:
        assert player.wait(timeout=20) == 0
        time.sleep(0.3)
    assert not microphone.active  # the with block closed it
    recording = microphone.recording
    assert recording is not None
    samples = recording.samples()
    loud = samples[np.abs(samples) > 0.05]
    assert len(loud) > SAMPLE_RATE // 2
    spectrum = np.abs(np.fft.rfft(samples))
    assert np.fft.rfftfreq(len(samples), 1 / SAMPLE_RATE)[np.argmax(spectrum)] == pytest.approx(
        440, abs=3
    )


@pytest.mark.server
def test_a_full_recording_stops_by_itself(pulse_microphone: AudioServer) -> None:
    microphone = Microphone("pulse", max_seconds=0.5)
    recording = microphone.start()
    assert wait_for(lambda: not microphone.active)
    assert recording.full
    assert recording.seconds == 0.5
    assert len(recording.samples()) == SAMPLE_RATE // 2
    assert microphone.stop() is recording


@pytest.mark.server
def test_listing_devices_while_recording_keeps_the_stream(pulse_microphone: AudioServer) -> None:
    # Reading PortAudio's list again restarts PortAudio, which would close the open stream.
    with Microphone("pulse") as microphone:
        recording = microphone.recording
        assert recording is not None
        assert wait_for(lambda: recording.seconds > 0)
        assert "pulse" in [device.name for device in input_devices()]
        assert microphone_problem("pulse") is None
        before = recording.seconds
        assert wait_for(lambda: recording.seconds > before + 0.3)
        assert microphone.active
    assert capture._streams_open == 0


@pytest.mark.server
def test_closing_on_an_error_and_cancelling(pulse_microphone: AudioServer) -> None:
    microphone = Microphone("pulse")
    with pytest.raises(KeyError), microphone:
        recording = microphone.recording
        assert recording is not None
        assert wait_for(lambda: recording.seconds > 0.2)
        raise KeyError("a bug while recording")
    assert not microphone.active
    assert capture._streams_open == 0
    recording = microphone.start()  # the same microphone records again
    assert wait_for(lambda: recording.seconds > 0.2)
    with pytest.raises(RuntimeError, match="already recording"):
        microphone.start()
    microphone.cancel()
    assert not microphone.active
    assert recording.seconds == 0
    assert len(recording.samples()) == 0


@pytest.mark.server
def test_a_microphone_that_is_not_connected(pulse_microphone: AudioServer) -> None:
    gone = GONE_MICROPHONE.format(name="USB headset")
    assert microphone_problem("USB headset") == gone
    with pytest.raises(RecordingError) as raised:
        Microphone("USB headset").start()
    assert str(raised.value) == gone
    # A name is matched whole: "puls" is not "pulse".
    assert microphone_problem("puls") == GONE_MICROPHONE.format(name="puls")


@pytest.mark.server
def test_a_device_that_vanishes_keeps_the_sound(pulse_microphone: AudioServer) -> None:
    microphone = Microphone("pulse")
    recording = microphone.start()
    assert wait_for(lambda: recording.seconds > 0.3)
    subprocess.run(["pactl", "unload-module", "module-null-sink"], check=True, timeout=10)
    assert wait_for(lambda: not microphone.active)
    kept = recording.seconds
    assert kept > 0.3
    assert microphone.stop().seconds == kept


@pytest.mark.server
def test_no_audio_server_is_a_clear_error(
    pulse_microphone: AudioServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert "pulse" in [device.name for device in input_devices()]
    # PortAudio still lists "pulse"; the server it names is gone.
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")
    expected = {NO_MICROPHONE, GONE_MICROPHONE.format(name="pulse")}
    with pytest.raises(RecordingError) as raised:
        Microphone("pulse").start()
    assert str(raised.value) in expected
    assert microphone_problem("pulse") in expected
    assert capture._streams_open == 0


def test_missing_portaudio_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ctypes.util.find_library

    def no_portaudio(name: str) -> str | None:
        return None if "portaudio" in name else real(name)

    monkeypatch.setattr(ctypes.util, "find_library", no_portaudio)
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    with pytest.raises(VoiceUnavailable) as raised:
        load_sounddevice()
    assert str(raised.value) == MISSING_PORTAUDIO
    assert "libportaudio2" in str(raised.value)
    assert isinstance(raised.value.__cause__, OSError)  # the real import failed, as it does
    with pytest.raises(VoiceUnavailable, match="PortAudio"):
        Microphone().start()
    with pytest.raises(VoiceUnavailable, match="PortAudio"):
        microphone_problem(None)


def test_missing_sounddevice_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)
    with pytest.raises(VoiceUnavailable) as raised:
        load_sounddevice()
    assert str(raised.value) == MISSING_PACKAGE
    assert "pip install 'hearth[voice]'" in str(raised.value)
    with pytest.raises(VoiceUnavailable, match="sounddevice"):
        input_devices()
