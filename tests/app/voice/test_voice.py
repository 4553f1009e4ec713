"""`hearth.Voice`, the one way the faces reach voice input: settings, microphones, speech
models and transcripts, against a real PulseAudio server, a real local hub and the real
Whisper tiny.en model."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hearth import (
    DownloadCancelled,
    InstalledSpeechModel,
    Voice,
    VoiceError,
    VoiceSettings,
    config_dir,
)
from hearth.errors import ChecksumMismatch
from hearth.models.download import DownloadProgress
from hearth.voice.capture import NO_MICROPHONE
from tests.app.voice import speech_hub
from tests.app.voice.speech_hub import MODEL_FILES, MODEL_ID
from tests.app.voice.voice_fixtures import (
    espeak_wav,
    playing,
    speech_model,
    word_error_rate,
)
from tests.connectors.system.audio_fixtures import AudioServer
from tests.fixtures.fake_hub import FakeHub

SENTENCE = "Remind me to call the dentist tomorrow morning."
IDS = ["whisper-tiny.en", "whisper-tiny", "whisper-base.en", "whisper-base"]

# The fake hub serving the real tiny.en files (fixtures shared with the other speech tests).
hub = speech_hub.hub
published = speech_hub.published
tiny_en_files = speech_hub.tiny_en_files


@pytest.fixture
def no_microphone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")


def installed(voice: Voice) -> dict[str, InstalledSpeechModel]:
    """Each installed model id's folder voice input would use (the first found)."""
    found: dict[str, InstalledSpeechModel] = {}
    for model in voice.installed_models():
        found.setdefault(model.entry.id, model)
    return found


def test_making_one_loads_neither_portaudio_nor_whisper() -> None:
    heavy = ["sounddevice", "faster_whisper", "ctranslate2", "av"]
    probe = (
        "import sys, hearth; hearth.Voice(window=True)\n"
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_settings_are_read_on_first_use_and_saved() -> None:
    voice = Voice()
    chosen = VoiceSettings(language="any", size="base", send_at_once=True, microphone="pulse")
    (config_dir() / "voice.json").write_text(json.dumps(chosen.model_dump()))
    assert voice.settings == chosen  # read now, not when it was made
    voice.save_settings(VoiceSettings(size="base"))
    assert voice.settings == VoiceSettings(size="base")
    assert json.loads((config_dir() / "voice.json").read_text())["size"] == "base"
    assert Voice().settings == VoiceSettings(size="base")


def test_the_catalog_and_the_model_the_settings_choose() -> None:
    voice = Voice()
    assert [entry.id for entry in voice.catalog()] == IDS
    assert voice.entry("whisper-base").label == "Whisper base, any language"
    assert voice.entry_for(VoiceSettings(language="any", size="base")) == voice.entry(
        "whisper-base"
    )
    assert voice.entry_for(voice.settings).id == MODEL_ID  # English, tiny


def test_the_package_model_is_installed_and_intact() -> None:
    folder = speech_model()
    voice = Voice()
    model = installed(voice)[MODEL_ID]
    assert (model.path, model.source) == (folder, "package")
    voice.verify(model)  # no error: its required files are there


@pytest.mark.server
def test_download_installs_a_model_that_verify_checks(
    published: dict[str, bytes],
    hub: FakeHub,
) -> None:
    voice = Voice()
    entry = voice.entry(MODEL_ID)
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(DownloadCancelled):
        voice.download(entry, cancel=stopped)
    reports: list[DownloadProgress] = []
    folder = voice.download(entry, progress=reports.append)
    assert sorted(path.name for path in folder.iterdir() if path.name in MODEL_FILES) == sorted(
        MODEL_FILES
    )
    total = sum(len(data) for data in published.values())
    assert reports[-1].bytes_done == reports[-1].bytes_total == total
    downloaded = next(m for m in voice.installed_models() if m.source == "user")
    assert downloaded.path == folder
    voice.verify(downloaded)
    damaged = bytearray((folder / "config.json").read_bytes())
    damaged[0] ^= 0xFF  # same size, one byte different
    (folder / "config.json").write_bytes(bytes(damaged))
    with pytest.raises(ChecksumMismatch, match=r"config\.json"):
        voice.verify(downloaded)


def test_without_a_microphone_it_says_so(no_microphone: None) -> None:
    voice = Voice()
    assert voice.microphones() == []
    assert voice.readiness().problem == NO_MICROPHONE


@pytest.mark.server
def test_records_saves_reads_back_and_transcribes(
    pulse_microphone: AudioServer, tmp_path: Path
) -> None:
    speech_model()
    voice = Voice()
    assert "pulse" in voice.microphones()
    readiness = voice.readiness()
    assert readiness.ready and readiness.model is not None
    assert readiness.model.path == speech_model()
    voice.load_speech_model()
    wav = espeak_wav(tmp_path / "said.wav", SENTENCE)
    with voice.microphone() as microphone, playing(wav) as player:
        assert player.wait(timeout=20) == 0
        time.sleep(0.3)  # the sink's last block reaches the monitor
    recording = microphone.recording
    assert recording is not None and recording.seconds > 2.0
    kept = tmp_path / "kept.wav"
    voice.write_wav(kept, recording)
    heard = voice.transcribe(recording)
    assert word_error_rate([SENTENCE], [heard.text]) <= 0.25, heard.text
    assert recording.seconds == 0.0  # the sound is gone once transcribed
    again = voice.transcribe(voice.record_file(kept))
    assert word_error_rate([SENTENCE], [again.text]) <= 0.25, again.text


def test_a_file_that_is_not_a_wav_is_a_voice_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.wav"
    bogus.write_text("not sound")
    with pytest.raises(VoiceError, match="not a readable WAV file"):
        Voice().record_file(bogus)
