"""`Every`: a background job runs at once and again at its interval; a condition of the world
is kept and the job goes on; a bug is logged and the job goes on; stop is safe twice."""

from __future__ import annotations

import logging
import threading

import pytest

from hearth import Every, HearthError

TICK_MINUTES = 0.0  # the job waits its minimum (a second) between runs


def test_runs_at_once_and_again_until_stopped() -> None:
    runs: list[int] = []
    twice = threading.Event()

    def work() -> None:
        runs.append(len(runs))
        if len(runs) == 2:
            twice.set()

    job = Every("test job", work, lambda: TICK_MINUTES)
    job.start()
    job.start()  # a second start is ignored: still one thread
    assert twice.wait(10)
    job.stop()
    job.stop()
    count = len(runs)
    assert threading.Event().wait(1.2) is False and len(runs) == count  # stopped means stopped
    assert [t.name for t in threading.enumerate() if t.name == "hearth-test job"] == []


def test_a_condition_of_the_world_is_kept_and_a_bug_logged_and_the_job_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcomes = iter([HearthError("the server is down"), RuntimeError("a bug"), None])
    done = threading.Event()
    seen: list[str | None] = []

    def work() -> None:
        outcome = next(outcomes, None)
        seen.append(job.last_error)
        if outcome is None:
            done.set()
            return
        raise outcome

    job = Every("flaky job", work, lambda: TICK_MINUTES)
    with caplog.at_level(logging.WARNING, logger="hearth.background"):
        job.start()
        assert done.wait(10)
        job.stop()
    # Each run saw what the one before it left: nothing, the world's error, the bug's note.
    assert seen == [None, "the server is down", "an internal error (see the log)"]
    assert job.last_error is None
    assert "the server is down" in caplog.text and "a bug" in caplog.text


def test_now_runs_again_at_once_instead_of_at_the_interval() -> None:
    runs = threading.Semaphore(0)
    job = Every("test job", runs.release, lambda: 60.0)  # next run in an hour
    job.start()
    try:
        assert runs.acquire(timeout=10)  # the run at start
        assert not runs.acquire(timeout=0.5)
        job.now()  # new settings were saved
        assert runs.acquire(timeout=10)
    finally:
        job.stop()
