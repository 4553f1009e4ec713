"""Thread policy and the decode thread tuner: pure logic on scripted token times, then the real
engine's llama.cpp context, and the OpenMP spin set before llama.cpp loads."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import llama_cpp
import pytest

from hearth.engine.threads import SPIN_COUNT, ThreadPolicy, ThreadTuner

pytestmark = pytest.mark.timeout(120)

# Seconds per token as measured on the 2-core test machine with SmolLM2 (tests/bench/load.py).
IDLE = {2: 0.0060, 1: 0.0066}
LOADED = {2: 0.197, 1: 0.009}  # one busy process per core: two threads collapse


def quiet_tuner(
    policy: ThreadPolicy,
    apply: Callable[[int, int], None] = lambda d, p: None,
    others: Callable[[], float | None] = lambda: 0.0,
) -> ThreadTuner:
    """A tuner whose meter sees no other program (unless `others` says otherwise): the
    speeds it is fed decide alone."""
    return ThreadTuner(policy, apply, others=others, capacity=2)


def run(tuner: ThreadTuner, tokens: int, speeds: Callable[[int], float]) -> list[int]:
    """Decode `tokens` tokens; return the thread count each one ran with."""
    counts = []
    for _ in range(tokens):
        tuner.before_token()
        counts.append(tuner.running)
        tuner.after_token(speeds(tuner.running))
    return counts


def seconds(counts: list[int], speeds: dict[int, float]) -> float:
    return sum(speeds[count] for count in counts)


def test_window_and_terminal_leave_a_core_for_the_front_end_and_read_prompts_on_all() -> None:
    assert ThreadPolicy.automatic(cores=2) == ThreadPolicy(1, 2)
    assert ThreadPolicy.automatic(cores=1) == ThreadPolicy(1, 1)
    assert ThreadPolicy.automatic(cores=8) == ThreadPolicy(7, 8)


def test_a_fixed_count_is_never_tuned() -> None:
    applied: list[tuple[int, int]] = []
    tuner = quiet_tuner(ThreadPolicy.fixed(2), lambda d, p: applied.append((d, p)))
    assert set(run(tuner, 300, LOADED.__getitem__)) == {2}
    assert applied == [(2, 2)]
    with pytest.raises(ValueError):
        ThreadPolicy.fixed(0)


def test_candidates_halve_down_to_one() -> None:
    assert quiet_tuner(ThreadPolicy(8, 8)).candidates == (8, 4, 2, 1)


def test_under_load_it_drops_to_the_count_that_does_not_collapse() -> None:
    applied: list[tuple[int, int]] = []
    tuner = quiet_tuner(ThreadPolicy(2, 2), lambda d, p: applied.append((d, p)))
    counts = run(tuner, 1000, LOADED.__getitem__)
    assert tuner.current == 1
    assert counts[:3] == [2, 2, 1]  # found within the first few tokens
    assert all(prefill == 2 for _, prefill in applied)  # prompts still read on every core
    # Probing the collapsed count again costs little: backing off keeps the run within 15%
    # of the time it takes on the right count from the start.
    assert seconds(counts, LOADED) < 1.15 * 1000 * LOADED[1]


def test_when_load_leaves_it_returns_to_more_threads() -> None:
    tuner = quiet_tuner(ThreadPolicy(2, 2))
    run(tuner, 10_000, LOADED.__getitem__)  # long enough for probing to back off fully
    faster = {2: 0.004, 1: 0.0066}  # a model where two threads pay off when idle
    counts = run(tuner, 200, faster.__getitem__)
    assert tuner.current == 2
    assert counts[-100:].count(2) > 95  # within about 50 tokens, not a backed-off 1,536


def test_on_an_idle_machine_probing_costs_under_two_percent() -> None:
    faster = {2: 0.004, 1: 0.0066}
    tuner = quiet_tuner(ThreadPolicy(2, 2))
    counts = run(tuner, 2000, faster.__getitem__)
    assert seconds(counts, faster) < 1.02 * 2000 * faster[2]


def test_a_lone_slow_token_does_not_switch_for_good() -> None:
    tuner = quiet_tuner(ThreadPolicy(2, 2))
    faster = {2: 0.004, 1: 0.0066}
    run(tuner, 100, faster.__getitem__)
    tuner.before_token()
    tuner.after_token(0.05)  # one hiccup
    counts = run(tuner, 100, faster.__getitem__)
    assert counts[-60:].count(2) >= 56  # back within a few dozen tokens, bar probes


def test_when_other_programs_fill_the_cores_more_threads_are_never_tried() -> None:
    load = [1.4]  # two busy programs, sharing two cores with our one thread
    tuner = quiet_tuner(ThreadPolicy(2, 2), others=lambda: load[0])
    counts = run(tuner, 1000, LOADED.__getitem__)
    assert counts == [1] * 1000  # not even a probe: it would cost twenty tokens' time
    load[0] = 0.1  # they finished
    faster = {2: 0.004, 1: 0.0066}
    counts = run(tuner, 100, faster.__getitem__)
    assert tuner.current == 2 and counts.index(2) <= ThreadTuner.LOOK_EVERY + ThreadTuner.CONFIRM


def test_a_meter_that_cannot_tell_yet_changes_nothing() -> None:
    tuner = quiet_tuner(ThreadPolicy(2, 2), others=lambda: None)
    assert run(tuner, 50, IDLE.__getitem__).count(2) >= 45


def test_on_a_bigger_machine_the_fitting_count_is_kept() -> None:
    tuner = ThreadTuner(ThreadPolicy(8, 8), lambda d, p: None, others=lambda: 2.0, capacity=8)
    counts = run(tuner, 10, {8: 0.2, 4: 0.01, 2: 0.015, 1: 0.03}.__getitem__)
    assert tuner.ceiling == 4 and counts[0] == 4


def test_the_engine_runs_llama_cpp_with_the_policy(test_gguf: Path) -> None:
    from hearth.engine.llama import LlamaCppModel

    with LlamaCppModel(test_gguf, n_ctx=512, threads=ThreadPolicy(3, 4, tune=False)) as model:
        assert llama_cpp.llama_n_threads(model.ctx) == 3
        assert llama_cpp.llama_n_threads_batch(model.ctx) == 4
        assert model.info.threads == 3
        model.use_threads(ThreadPolicy.fixed(1))
        assert llama_cpp.llama_n_threads(model.ctx) == 1
        assert llama_cpp.llama_n_threads_batch(model.ctx) == 1
        assert model.info.threads == 1


def _spin_seen_by_a_fresh_process(env: dict[str, str]) -> str:
    code = "import os, hearth.engine.llama; print(os.environ.get('GOMP_SPINCOUNT'))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_openmp_spins_briefly_unless_the_user_chose_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOMP_", "OMP_"))}
    assert _spin_seen_by_a_fresh_process(env) == str(SPIN_COUNT)
    assert _spin_seen_by_a_fresh_process({**env, "GOMP_SPINCOUNT": "5"}) == "5"
    assert _spin_seen_by_a_fresh_process({**env, "OMP_WAIT_POLICY": "ACTIVE"}) == "None"
