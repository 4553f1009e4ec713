"""The start-up benchmark's children: each `hearth` in a process group of its own, timed.

The group is killed once the command has exited: an MCP server it started and that never
answers would otherwise outlive it, and hold its output open.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

TIMEOUT_S = 300
SHOWN = re.compile(rb"HEARTH_SCREENSHOT: window shown ([0-9.]+) s after start")


@contextlib.contextmanager
def child(
    command: list[str], env: dict[str, str], **streams: Any
) -> Iterator[subprocess.Popen[bytes]]:
    """`command` in a process group of its own, killed whole once the command has exited."""
    process = subprocess.Popen(command, env=env, start_new_session=True, **streams)
    try:
        yield process
    finally:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=TIMEOUT_S)
        kill_group(process)
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def run_timed(command: list[str], env: dict[str, str]) -> float:
    # stderr to a file, not a pipe: nothing blocks on it, and a server the command started
    # may hold it open after the command quits.
    with tempfile.TemporaryFile() as said:
        started = time.perf_counter()
        with child(command, env, stdout=subprocess.DEVNULL, stderr=said) as process:
            process.wait(timeout=TIMEOUT_S)
            elapsed = time.perf_counter() - started
        if process.returncode != 0:
            said.seek(0)
            tail = said.read().decode(errors="replace").strip().splitlines()[-1:]
            raise RuntimeError(f"{' '.join(command[:2])} exited {process.returncode}: {tail}")
    return elapsed


def window_shown(command: list[str], env: dict[str, str]) -> float:
    """Seconds from the process's start to its window shown, as the window itself says."""
    screenshot = Path(env["HEARTH_HOME"]) / "window.png"
    env = {**env, "HEARTH_SCREENSHOT": str(screenshot)}
    shown: list[float] = []
    said = threading.Event()

    def read(stream: IO[bytes]) -> None:
        # Read to the end, so no writer ever waits on a full pipe.
        for line in stream:
            if not shown and (found := SHOWN.search(line)):
                shown.append(float(found[1]))
                said.set()
        said.set()

    with child(command, env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        assert process.stderr is not None
        reader = threading.Thread(target=read, args=(process.stderr,), daemon=True)
        reader.start()
        said.wait(TIMEOUT_S)
        process.wait(timeout=TIMEOUT_S)
        kill_group(process)
        reader.join(TIMEOUT_S)
    if not shown:
        raise RuntimeError(f"hearth never said its window was shown (exit {process.returncode})")
    return shown[0]


def median_of(repeats: int, measure: Callable[[], float]) -> float:
    return round(statistics.median(measure() for _ in range(repeats)), 4)


def first_stdout_byte(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    with child(command, env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        assert process.stdout is not None
        first = process.stdout.read(1)
        elapsed = time.perf_counter() - started
        process.wait(timeout=TIMEOUT_S)
    if not first or process.returncode != 0:
        raise RuntimeError(f"hearth ask printed nothing (exit status {process.returncode})")
    return elapsed
