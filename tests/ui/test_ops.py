"""run_op: handlers run on the GUI thread, never for a deleted receiver, and only from there."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from hearth.ui.ops import run_op


@pytest.fixture
def pool() -> Iterator[QThreadPool]:
    workers = QThreadPool()
    yield workers
    workers.waitForDone()


def test_success_gets_the_result_on_the_gui_thread(qtbot: QtBot, pool: QThreadPool) -> None:
    receiver = QWidget()
    qtbot.addWidget(receiver)
    seen: list[tuple[object, threading.Thread]] = []
    run_op(pool, lambda: 42, receiver=receiver, success=lambda r: seen.append((r, current())))
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == [(42, threading.main_thread())]


def test_failure_gets_the_error(qtbot: QtBot, pool: QThreadPool) -> None:
    receiver = QWidget()
    qtbot.addWidget(receiver)
    errors: list[Exception] = []

    def work() -> None:
        raise ValueError("the disk is full")

    run_op(pool, work, receiver=receiver, success=pytest.fail, failure=errors.append)
    qtbot.waitUntil(lambda: bool(errors))
    assert [str(error) for error in errors] == ["the disk is full"]


@pytest.mark.parametrize("outcome", ["result", "error"])
def test_no_handler_runs_once_the_receiver_is_deleted(
    qtbot: QtBot, pool: QThreadPool, outcome: str
) -> None:
    parent = QWidget()
    receiver = QWidget(parent)
    release = threading.Event()
    called: list[object] = []

    def work() -> str:
        release.wait(5)
        if outcome == "error":
            raise ValueError("late")
        return "late"

    run_op(pool, work, receiver=receiver, success=called.append, failure=called.append)
    shiboken6.delete(parent)
    release.set()
    pool.waitForDone()
    witness = QWidget()
    qtbot.addWidget(witness)
    done: list[object] = []
    run_op(pool, lambda: None, receiver=witness, success=done.append)
    qtbot.waitUntil(lambda: bool(done))  # delivered in order: the first one was seen and dropped
    assert called == []


def test_what_work_and_handlers_hold_is_released_on_the_gui_thread(
    qtbot: QtBot, pool: QThreadPool
) -> None:
    released: list[threading.Thread] = []

    class Held:
        def __del__(self) -> None:
            released.append(current())

    def start(fail: bool) -> list[object]:
        held, done = Held(), []

        def work() -> Held:
            if fail:
                raise ValueError(held)
            return held

        run_op(pool, work, receiver=receiver, success=done.append, failure=done.append)
        return done

    receiver = QWidget()
    qtbot.addWidget(receiver)
    for fail in (False, True):
        done = start(fail)
        qtbot.waitUntil(lambda: bool(done))  # noqa: B023 - waited for within this iteration
        done.clear()
    pool.waitForDone()
    assert released == [threading.main_thread()] * 2


def test_calling_it_off_the_gui_thread_raises(qtbot: QtBot, pool: QThreadPool) -> None:
    receiver = QWidget()
    qtbot.addWidget(receiver)
    raised: list[BaseException] = []

    def call() -> None:
        try:
            run_op(pool, lambda: None, receiver=receiver)
        except RuntimeError as error:
            raised.append(error)

    thread = threading.Thread(target=call)
    thread.start()
    thread.join(5)
    assert len(raised) == 1 and "GUI thread" in str(raised[0])


def current() -> threading.Thread:
    return threading.current_thread()
