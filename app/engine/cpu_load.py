"""How much processor time other programs are using, from the OS's own counters."""

from __future__ import annotations

import time

import psutil


class CpuMeter:
    """Processor time used by every other process, in cores (1.0: one core, all the time)."""

    def __init__(self) -> None:
        self._process = psutil.Process()
        self._start = self._last = self._sample()

    def _sample(self) -> tuple[float, float, float]:
        total = psutil.cpu_times()
        busy = sum(total) - total.idle - getattr(total, "iowait", 0.0)
        own = self._process.cpu_times()
        return time.monotonic(), busy, own.user + own.system

    @staticmethod
    def _between(start: tuple[float, float, float], end: tuple[float, float, float]) -> float:
        wall = end[0] - start[0]
        if wall <= 0:
            return 0.0
        return max(0.0, ((end[1] - start[1]) - (end[2] - start[2])) / wall)

    def others_cores(self) -> float:
        """Since the meter was made."""
        return self._between(self._start, self._sample())

    def others_lately(self, at_least_s: float = 0.1) -> float | None:
        """Since the previous call; None (and the interval goes on) when under `at_least_s`,
        too short for the OS's 10 ms accounting to mean anything."""
        now = self._sample()
        if now[0] - self._last[0] < at_least_s:
            return None
        others, self._last = self._between(self._last, now), now
        return others
