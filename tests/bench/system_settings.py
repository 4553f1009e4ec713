"""System connector benchmark: prints JSON. Run: .venv/bin/python tests/bench/system_settings.py

Against a real PulseAudio server with a null sink (the test fixture's, on a private socket),
measured side by side in one run, as medians in ms:
- reading the volume through Hearth's `PactlVolume` against one bare `pactl get-sink-volume`;
- a proved change (`changing.change`: read, journal, write, read back) against one bare
  `pactl set-sink-volume`: what proving a change costs;
- `system.status` (every setting and the battery) with the backends' probes kept, and cold;
- choosing the backend (`Machine.control`): probing cold against the kept answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import argparse
import json
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest

from hearth.connectors.system.changing import change
from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.linux_audio import PactlVolume, audio_controls
from hearth.connectors.system.machine import PROBE_KEPT_S, Machine
from hearth.connectors.system.platforms import linux_machine
from hearth.connectors.system.reading import read_status
from tests.connectors.system.audio_fixtures import running_pulse


def median_ms(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def measure(repeats: int) -> dict[str, Any]:
    runner = CommandRunner()
    volume = PactlVolume(runner)
    bare_read = ["pactl", "get-sink-volume", "@DEFAULT_SINK@"]
    levels = iter(range(10**6))

    def bare_set() -> None:
        level = next(levels) % 90 + 5
        subprocess.run(["pactl", "set-sink-volume", "@DEFAULT_SINK@", f"{level}%"], check=True)

    def proved_set() -> None:
        change(volume, next(levels) % 90 + 5)

    results: dict[str, Any] = {}
    read_hearth = median_ms(volume.read, repeats)
    read_bare = median_ms(lambda: subprocess.run(bare_read, capture_output=True), repeats)
    results["volume_read_ms"] = {"hearth": read_hearth, "bare_pactl": read_bare}
    results["volume_read_ratio"] = round(read_hearth / read_bare, 2)
    set_hearth, set_bare = median_ms(proved_set, repeats), median_ms(bare_set, repeats)
    results["volume_change_ms"] = {"hearth_proved": set_hearth, "bare_pactl_set": set_bare}
    results["volume_change_ratio"] = round(set_hearth / set_bare, 2)

    clock = [0.0]
    kept = linux_machine(runner)
    kept.clock = lambda: clock[0]
    read_status(kept)  # probes every backend once; the clock stands still, so they are kept

    def cold_status() -> None:
        clock[0] += PROBE_KEPT_S
        read_status(kept)

    status_kept = median_ms(lambda: read_status(kept), repeats)
    status_cold = median_ms(cold_status, repeats)
    results["status_ms"] = {"probes_kept": status_kept, "probes_cold": status_cold}

    def choose_cold() -> None:
        Machine(audio_controls(runner)).control("volume")

    chooser = Machine(audio_controls(runner))
    chooser.control("volume")
    results["choose_backend_ms"] = {
        "cold": median_ms(choose_cold, repeats),
        "kept": median_ms(lambda: chooser.control("volume"), repeats),
    }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=30)
    options = parser.parse_args()
    with pytest.MonkeyPatch.context() as patch, running_pulse(patch) as server:
        report = {
            "machine": {"cpu": platform.processor() or platform.machine(), "python": sys.version},
            "server": f"PulseAudio null sink, started in {server.started_in_s:.2f} s",
            "repeats": options.repeats,
            **measure(options.repeats),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
