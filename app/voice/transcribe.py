"""Speech to text on this computer with faster-whisper (CTranslate2), from sound in memory.

The model folder is a CTranslate2 Whisper model (`model.bin`, `config.json`, `tokenizer.json`,
`vocabulary.*`). Sound goes in as an array, so nothing is written to disk on the way.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.voice.audio import SAMPLE_RATE, Samples
from hearth.voice.errors import SpeechModelError, VoiceError, VoiceUnavailable

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

# A push-to-talk message is a sentence or two: greedy decoding is as accurate as a beam of 5
# on it for the tiny and base models, at about half the time (tests/bench/voice.py).
BEAM_SIZE = 1
# Below this peak the recording is silence or hum; Whisper would invent words ("Thank you.").
SILENCE_PEAK = 0.01
MISSING_PACKAGES = (
    "Voice input needs the faster-whisper package, which is not installed;"
    " install it with: pip install 'hearth[voice]'"
)


@dataclass(frozen=True, slots=True)
class Transcript:
    """What was said, in which language, how long the sound was and how long it took."""

    text: str
    language: str
    audio_seconds: float
    seconds: float

    @property
    def real_time_factor(self) -> float:
        """Transcription time over sound duration; below 1 is faster than real time."""
        return self.seconds / self.audio_seconds if self.audio_seconds else 0.0


class Transcriber:
    """One loaded Whisper model; transcribes one recording at a time."""

    def __init__(self, model_dir: Path, *, threads: int) -> None:
        self.model_dir = model_dir
        self.threads = max(1, threads)
        self._model: WhisperModel | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def english_only(self) -> bool:
        """Whether the model knows only English (the `.en` models)."""
        return not self._load().model.is_multilingual

    def load(self) -> None:
        """Load the model now (it is loaded on first use otherwise)."""
        with self._lock:
            self._load()

    def transcribe(self, samples: Samples, *, cancel: threading.Event | None = None) -> Transcript:
        """The words in mono 16 kHz float sound; empty text when it is silent."""
        began = time.monotonic()
        duration = len(samples) / SAMPLE_RATE
        with self._lock:
            model = self._load()
            if not len(samples) or float(abs(samples).max()) < SILENCE_PEAK:
                return Transcript("", "", duration, time.monotonic() - began)
            language = None if model.model.is_multilingual else "en"
            try:
                segments, info = model.transcribe(
                    samples,
                    language=language,
                    beam_size=BEAM_SIZE,
                    condition_on_previous_text=False,
                    without_timestamps=True,
                    vad_filter=False,
                )
                parts = []
                for segment in segments:
                    if cancel is not None and cancel.is_set():
                        break
                    parts.append(segment.text.strip())
            except (RuntimeError, ValueError) as exc:
                raise VoiceError(f"Transcription failed: {exc}") from exc
        text = " ".join(part for part in parts if part)
        return Transcript(text, info.language, duration, time.monotonic() - began)

    def _load(self) -> WhisperModel:
        if self._model is None:
            self._model = load_whisper(self.model_dir, self.threads)
        return self._model


def load_whisper(model_dir: Path, threads: int) -> WhisperModel:
    """A CTranslate2 Whisper model from a folder, int8 on the CPU; clear errors if it is bad."""
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:
        raise VoiceUnavailable(MISSING_PACKAGES) from exc
    missing = [name for name in ("model.bin", "config.json") if not (model_dir / name).is_file()]
    if missing:
        raise SpeechModelError(
            f"{model_dir} is not a speech model: {', '.join(missing)} missing. Download the"
            " model again on the Models page."
        )
    try:
        return WhisperModel(
            str(model_dir),
            device="cpu",
            compute_type="int8",
            cpu_threads=threads,
            num_workers=1,
            local_files_only=True,
        )
    except Exception as exc:
        # CTranslate2 and tokenizers raise their own bare exception types for damaged files.
        raise SpeechModelError(
            f"The speech model in {model_dir} cannot be loaded ({_one_line(exc)}); it may be"
            " damaged. Download it again on the Models page."
        ) from exc


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
