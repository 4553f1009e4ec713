"""One measurement for tests/bench/load.py, in a fresh process; prints one JSON line.

Usage: python -m tests.bench.load_child KIND BEHAVIOUR MODEL TOKENS CAP_S
(KIND: headless or window; BEHAVIOUR: before, after or after_default_spin, see load.py)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HEARTH_HOME", tempfile.mkdtemp(prefix="hearth-bench-load-"))

from hearth.agent import AgentConfig, AnswerDelta, ReasoningDelta
from hearth.assistant import Assistant
from hearth.engine.llama import LlamaCppModel
from hearth.engine.threads import ThreadPolicy, physical_cores
from hearth.generation import GenerationSettings
from hearth.messages import CancelToken
from tests.bench.ui import PROMPT, StallMeter


def policy(behaviour: str) -> ThreadPolicy:
    if behaviour == "before":
        return ThreadPolicy.fixed(physical_cores())
    return ThreadPolicy.automatic()


def headless(assistant: Assistant, settings: GenerationSettings, cap: float) -> dict[str, Any]:
    stamps: list[float] = []
    session = assistant.session(config=AgentConfig(settings=settings))
    cancel = CancelToken()
    stop = threading.Timer(cap, cancel.cancel)

    def generate() -> None:
        for step in session.run_turn(PROMPT, cancel):
            if isinstance(step, AnswerDelta | ReasoningDelta):
                stamps.append(time.perf_counter())

    worker = threading.Thread(target=generate)
    stop.start()
    worker.start()
    worker.join()
    stop.cancel()
    return {
        "tok_s": round((len(stamps) - 1) / (stamps[-1] - stamps[0]), 1),
        "tokens": len(stamps),
        "capped": cancel.cancelled,
    }


def window(assistant: Assistant, settings: GenerationSettings, cap: float) -> dict[str, Any]:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from hearth.ui import theme
    from hearth.ui.context import UiContext
    from hearth.ui.main_window import MainWindow

    app = QApplication([])
    theme.apply_theme(app, theme.LIGHT)
    context = UiContext(assistant)
    main = MainWindow(context, pages=[], config=AgentConfig(settings=settings))
    main.resize(1100, 760)
    main.show()
    meter = StallMeter()
    speeds: list[float] = []
    capped: list[bool] = []
    main.controller.speed_did_change.connect(lambda s: speeds.append(s.tokens_per_second))
    loop = QEventLoop()
    main.controller.turn_did_finish.connect(lambda *_: loop.quit())
    QTimer.singleShot(200, lambda: (meter.start(), main.controller.send(PROMPT)))
    QTimer.singleShot(int(cap * 1000) + 200, lambda: (capped.append(True), main.controller.stop()))
    loop.exec()
    meter.stop()
    main.close()
    context.shutdown()
    gaps = sorted(meter.gaps_ms)
    return {
        "tok_s": round(speeds[-1], 1) if speeds else 0.0,
        "capped": bool(capped),
        "max_stall_ms": round(gaps[-1], 1),
        "p99_gap_ms": round(gaps[int(len(gaps) * 0.99)], 1),
    }


def main() -> None:
    kind, behaviour, model_path, tokens, cap = sys.argv[1:6]
    threads = policy(behaviour)
    settings = GenerationSettings(max_tokens=int(tokens), temperature=0.0, enable_thinking=False)
    model = LlamaCppModel(Path(model_path), n_ctx=4096, threads=threads)
    assistant = Assistant.open(model, entry_points=False, start_connectors=False)
    try:
        measure = headless if kind == "headless" else window
        result = measure(assistant, settings, float(cap))
    finally:
        assistant.close()
    result["threads"] = threads.describe()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
