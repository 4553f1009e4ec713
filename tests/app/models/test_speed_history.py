"""Telling a busy computer apart: the usual speed per model, and other programs' CPU use."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from pathlib import Path

from hearth.errors import RemoteModelError
from hearth.generation import ModelInfo
from hearth.models.speed_history import CpuMeter, SpeedHistory

INFO = ModelInfo("smol", "/models/smol.gguf", "llama", "Q4_1", 4096, "chatml", threads=2)


def test_the_first_reply_sets_the_usual_speed_and_is_never_called_slow() -> None:
    report = SpeedHistory().check(INFO, tokens=100, seconds=1.0, others_cores=1.5)
    assert report is not None and report.usual is None and report.advice() is None


def test_a_reply_under_half_the_usual_speed_says_why() -> None:
    history = SpeedHistory()
    history.check(INFO, tokens=140, seconds=1.0, others_cores=0.0)
    busy = history.check(INFO, tokens=40, seconds=1.0, others_cores=1.2)
    assert busy is not None and busy.slow and busy.label() == "computer busy"
    assert busy.advice() == (
        "Your computer is busy with other programs, so replies are slower than usual "
        "(40 tokens/s; usually 140)."
    )
    quiet = history.check(INFO, tokens=40, seconds=1.0, others_cores=0.1)
    assert quiet is not None and quiet.label() == "slower than usual"
    assert quiet.advice() is not None and "saving power" in quiet.advice()
    usual = history.check(INFO, tokens=100, seconds=1.0, others_cores=1.2)
    assert usual is not None and not usual.slow and usual.advice() is None


def test_the_usual_speed_is_kept_per_model_and_thread_count_across_runs() -> None:
    SpeedHistory().check(INFO, tokens=140, seconds=1.0, others_cores=0.0)
    fresh = SpeedHistory()  # a new run reads the file
    report = fresh.check(INFO, tokens=50, seconds=1.0, others_cores=0.0)
    assert report is not None and report.usual == 140
    other = fresh.check(dataclasses.replace(INFO, threads=1), 50, 1.0, 0.0)
    assert other is not None and other.usual is None


def test_short_replies_are_not_judged() -> None:
    assert SpeedHistory().check(INFO, tokens=5, seconds=0.01, others_cores=2.0) is None


def test_an_unreadable_history_starts_afresh_and_is_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "speeds.json"
    path.write_text("{not json")
    history = SpeedHistory(path)
    report = history.check(INFO, tokens=100, seconds=1.0, others_cores=0.0)
    assert report is not None and report.usual is None
    again = SpeedHistory(path).check(INFO, 100, 1.0, 0.0)
    assert again is not None and again.usual == 100


def test_the_cpu_meter_sees_another_program_spinning() -> None:
    meter = CpuMeter()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)
        assert meter.others_cores() >= 0.5
    finally:
        spinner.kill()
        spinner.wait()


class _GoneServer:
    @property
    def info(self) -> ModelInfo:
        raise RemoteModelError("the server at http://127.0.0.1:9 is not answering")


def test_a_model_whose_details_cannot_be_read_is_not_judged() -> None:
    assert SpeedHistory().check_reply(_GoneServer(), 100, 1.0, 0.0) is None  # type: ignore[arg-type]
    assert SpeedHistory().check_reply(_Known(), 100, 1.0, 0.0) is not None  # type: ignore[arg-type]


class _Known:
    info = INFO
