"""How well the real tiny.en model hears everyday requests, through the microphone's pipeline.

espeak-ng speaks each sentence into a WAV file; `record_file` feeds it block by block into a
`Recording` at espeak's 22050 Hz, exactly as a sound card's callback would, and the resampled
sound goes to the `Transcriber`. The word error rate is jiwer's, after lowercasing and dropping
punctuation. espeak-ng's voice is robotic, so this is a floor on quality, not a measure of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.voice.audio import record_file
from hearth.voice.transcribe import Transcriber
from tests.app.voice.voice_fixtures import (
    espeak_wav,
    normalise,
    shared_transcriber,
    word_error_rate,
)

SENTENCES = (
    "Move my dentist appointment to Friday afternoon.",
    "Remind me to call my mother tomorrow morning.",
    "What is on my calendar next week?",
    "Send an email to Sarah about the project deadline.",
    "Turn the volume down a little.",
    "Add milk and eggs to my shopping list.",
    "How long will it take to drive to the office?",
    "Find the notes from the meeting with the bank.",
)
# Measured here: overall WER 0.047 (3 words of 64); the bound leaves room for
# a different CPU's int8 kernels picking another word now and then; feeding the sound at the
# wrong rate (no resampling) measured 0.17.
MAX_WER = 0.12


@pytest.fixture
def transcriber() -> Transcriber:
    return shared_transcriber()


@pytest.mark.model
def test_everyday_requests_are_heard(transcriber: Transcriber, tmp_path: Path) -> None:
    heard = []
    for number, sentence in enumerate(SENTENCES):
        wav = espeak_wav(tmp_path / f"sentence-{number}.wav", sentence)
        recording = record_file(wav)
        assert recording.rate == 22050  # espeak's own rate: the resampler is on the path
        text = transcriber.transcribe(recording.samples()).text
        heard.append(text)
        print(f"WER {word_error_rate([sentence], [text]):.2f}  {sentence!r} -> {text!r}")
    overall = word_error_rate(list(SENTENCES), heard)
    print(f"overall WER {overall:.3f}")
    assert overall <= MAX_WER
    assert sum(normalise(h) == normalise(s) for h, s in zip(heard, SENTENCES, strict=True)) >= 4
