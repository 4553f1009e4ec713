"""How many CPU threads llama.cpp uses, and how they wait for each other.

llama.cpp's OpenMP workers spin at every barrier of every token. With libgomp's default spin
(300,000 rounds) that is free on an idle machine and ruinous on a busy one: when the OS takes a
core from one worker, the others burn their time slices spinning for it, and decoding falls to a
few tokens a second. Decoding therefore uses only as many threads as other programs leave cores
for, and fewer whenever fewer measure faster (the tuner below); prompts are read on every core
with a short spin, which keeps that from collapsing too. `tests/bench/load.py` measures it all.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from hearth.cpu_variant import choose_variant
from hearth.engine.cpu_load import CpuMeter

# Rounds a waiting OpenMP worker spins before it sleeps (libgomp's GOMP_SPINCOUNT): as fast as
# the default when idle; with a busy program per core, two-thread prompt reading ran at 191
# tokens/s where the default spin did not finish in two minutes.
SPIN_COUNT = 10_000


def configure_openmp() -> None:
    """Give libgomp a short spin; must run before llama.cpp is loaded. The user's own settings win.

    Only libgomp (Linux builds) reads this; macOS builds use ggml's own thread pool.
    """
    choose_variant()  # a bundle's no-AVX fallback must also be chosen before llama.cpp loads
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", str(SPIN_COUNT))


def physical_cores() -> int:
    return psutil.cpu_count(logical=False) or psutil.cpu_count() or 1


@dataclass(frozen=True)
class ThreadPolicy:
    """Threads for generating tokens (`decode`, at most) and for reading prompts (`prefill`)."""

    decode: int
    prefill: int
    tune: bool = True  # decode with fewer threads while fewer measure faster

    @classmethod
    def automatic(cls, *, cores: int | None = None) -> ThreadPolicy:
        """Every physical core but one for writing, in the window and the terminal alike.

        The core left free serves the front end: the window's own thread, or the terminal that
        draws each token. With it, a reply keeps at least half its idle speed while other
        programs keep every core busy (tests/bench/load.py), where decoding on every core
        kept as little as a third of it in the terminal. Prefill keeps every core: there is
        little to draw while a prompt is read.
        """
        cores = cores or physical_cores()
        return cls(decode=max(1, cores - 1), prefill=cores)

    @classmethod
    def fixed(cls, threads: int) -> ThreadPolicy:
        """Exactly `threads` for everything, never tuned (the user asked for it)."""
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        return cls(decode=threads, prefill=threads, tune=False)

    def describe(self) -> str:
        if not self.tune:
            return _threads(self.decode)
        return f"up to {_threads(self.decode)} while writing, {self.prefill} while reading"


def _threads(count: int) -> str:
    return f"{count} thread" if count == 1 else f"{count} threads"


def _halvings(count: int) -> tuple[int, ...]:
    counts = [count]
    while counts[-1] > 1:
        counts.append(counts[-1] // 2)
    return tuple(counts)


class ThreadTuner:
    """Decodes with whichever candidate thread count has measured fastest lately.

    Candidates halve from the policy's decode count down to one. Every token's decode time feeds
    a moving average for the count that ran it. Now and then, or at once after a token far
    slower than usual, the tuner spends a few tokens on the candidate measured longest ago and
    keeps it when it is clearly faster, so speed follows the machine's load both ways. A switch
    is soon checked again, in case a passing hiccup caused it. A probe that loses waits twice as
    long before the next one (a losing count can be very slow while cores are taken), until the
    current count speeds up markedly, which is when load has left.

    It also watches how much processor time other programs use: a count that would need more
    cores than they leave free is neither used nor probed, since under load such a probe costs
    the time of many tokens. When they free cores again, probing resumes at once.
    """

    FIRST_PROBE = 2  # tokens before the first probe: a loaded machine is found at once
    CONFIRM = 12  # tokens after a switch before checking it was not a passing hiccup
    PROBE_EVERY = 48  # tokens between later probes, doubled after each probe that loses
    MAX_PROBE_EVERY = 1536
    PROBE_TOKENS = 4  # the first one warms the workers up and is not counted
    SPIKE = 2.5  # a token this many times slower than the average probes at once
    MARGIN = 0.92  # a probe must take under this share of the current time per token to win
    LOAD_LEFT = 0.75  # the current count this much faster than when a probe lost: probe again
    WEIGHT = 0.25
    LOOK_EVERY = 16  # tokens between readings of other programs' processor use
    SLACK = 0.5  # cores a count may overcommit before it counts as not fitting

    def __init__(
        self,
        policy: ThreadPolicy,
        apply: Callable[[int, int], None],
        *,
        others: Callable[[], float | None] | None = None,
        capacity: int | None = None,
    ) -> None:
        """`others` gives the cores other programs used lately (None: too soon to tell)."""
        self.policy = policy
        self._apply = apply
        self.candidates = _halvings(policy.decode) if policy.tune else (policy.decode,)
        self.current = policy.decode
        self.running = policy.decode
        self.ceiling = policy.decode  # the most threads that fit beside other programs now
        self._others = others or CpuMeter().others_lately
        self._capacity = capacity or psutil.cpu_count() or 1
        self._since_look = self.LOOK_EVERY
        self.seconds_per_token: dict[int, float] = {}
        self._measured_at: dict[int, int] = {}
        self._tokens = 0
        self._since_probe = 0
        self._probe_every = self.FIRST_PROBE
        self._lost_at: float | None = None  # the current count's time per token then
        self._probe: list[float] | None = None
        apply(self.current, policy.prefill)

    def before_token(self) -> None:
        if len(self.candidates) > 1:
            self._look_at_load()
        wanted = self.current if self._probe is None else self._probing()
        if wanted != self.running:
            self._apply(wanted, self.policy.prefill)
            self.running = wanted

    def after_token(self, seconds: float) -> None:
        self._tokens += 1
        if self._probe is not None:
            self._probe.append(seconds)
            if len(self._probe) >= self.PROBE_TOKENS or self._hopeless(seconds):
                self._finish_probe()
            return
        average = self.seconds_per_token.get(self.running)
        self._record(self.running, seconds)
        self._since_probe += 1
        if len(self._fitting()) > 1 and self._should_probe(seconds, average):
            self._probe = []

    def _look_at_load(self) -> None:
        self._since_look += 1
        if self._since_look < self.LOOK_EVERY:
            return
        others = self._others()
        if others is None:
            return
        self._since_look = 0
        fitting = [c for c in self.candidates if c + others <= self._capacity + self.SLACK]
        ceiling = max(fitting, default=1)
        if ceiling > self.ceiling:  # cores were freed: find out soon whether more threads pay
            self._probe_every = self.CONFIRM
            self._since_probe = 0
        self.ceiling = ceiling
        if self.current > ceiling:
            self.current = ceiling
        if self._probe is not None and self.running > ceiling:
            self._probe = None  # the probe is for a count that no longer fits

    def _fitting(self) -> list[int]:
        return [count for count in self.candidates if count <= self.ceiling]

    def _should_probe(self, seconds: float, average: float | None) -> bool:
        if average is not None and seconds > self.SPIKE * average:
            return True
        if self._lost_at is not None and (
            self.seconds_per_token[self.current] < self.LOAD_LEFT * self._lost_at
        ):
            self._probe_every = self.PROBE_EVERY
            self._lost_at = None
        return self._since_probe >= self._probe_every

    def _hopeless(self, seconds: float) -> bool:
        """A probe token this slow cannot win; stop paying for it."""
        current = self.seconds_per_token.get(self.current)
        return current is not None and seconds > self.SPIKE * current

    def _probing(self) -> int:
        others = [count for count in self._fitting() if count != self.current]
        if not others:
            return self.current
        return min(others, key=lambda count: self._measured_at.get(count, -1))

    def _finish_probe(self) -> None:
        assert self._probe is not None
        measured = self._probe[1:] or self._probe
        probed = self.running
        self._probe = None
        self._since_probe = 0
        speed = sum(measured) / len(measured)
        self.seconds_per_token[probed] = speed
        self._measured_at[probed] = self._tokens
        current = self.seconds_per_token.get(self.current, float("inf"))
        if speed < self.MARGIN * current:
            self.current = probed
            self._probe_every = self.CONFIRM
            self._lost_at = None
        else:
            self._probe_every = min(
                max(2 * self._probe_every, self.PROBE_EVERY), self.MAX_PROBE_EVERY
            )
            self._lost_at = current

    def _record(self, count: int, seconds: float) -> None:
        average = self.seconds_per_token.get(count)
        self.seconds_per_token[count] = (
            seconds if average is None else average + self.WEIGHT * (seconds - average)
        )
        self._measured_at[count] = self._tokens
