"""Background ops: a callable runs on a worker pool, its result comes back on the GUI thread.

Widgets never do I/O or inference themselves; they hand a callable to `run_op` with a success
and a failure handler (anki's ops). The worker never touches an object the UI may delete: it
stores the outcome on the operation and emits the operation's key on one dispatcher that lives
on the GUI thread and is never deleted. The handler then runs on the GUI thread, where widgets
are deleted too, and only if its receiver is still alive; every reference the operation holds
is dropped there as well.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import (
    QCoreApplication,
    QObject,
    QRunnable,
    Qt,
    QThread,
    QThreadPool,
    Signal,
    Slot,
)


class _Operation:
    """One run of `work` and where its outcome goes; created and released on the GUI thread."""

    def __init__(
        self,
        work: Callable[[], Any],
        receiver: QObject,
        success: Callable[[Any], object] | None,
        failure: Callable[[Exception], object] | None,
    ) -> None:
        self.work: Callable[[], Any] | None = work
        self.receiver = weakref.ref(receiver)
        self.success = success
        self.failure = failure
        self.outcome: tuple[bool, Any] | None = None

    def execute(self) -> None:
        """Run `work` (on a worker); the outcome waits here for the GUI thread."""
        assert self.work is not None
        try:
            self.outcome = (True, self.work())
        except Exception as error:  # handed to the failure handler on the GUI thread
            self.outcome = (False, error)

    def finish(self) -> None:
        """Call the handler, unless the receiver is gone (GUI thread)."""
        receiver = self.receiver()
        if receiver is None or not shiboken6.isValid(receiver) or self.outcome is None:
            return
        ok, value = self.outcome
        if ok and self.success is not None:
            self.success(value)
        elif not ok and self.failure is not None:
            self.failure(value)

    def release(self) -> None:
        # A failure's traceback holds execute's frame and so this operation: break the cycle
        # here, so what `work` and the handlers hold (widgets too) dies on the GUI thread.
        self.work = self.success = self.failure = self.outcome = None


class _Dispatcher(QObject):
    """Carries finished operations' keys to the GUI thread; lives as long as the process."""

    finished = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[int, _Operation] = {}
        self.keys = itertools.count()
        self.finished.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def add(self, operation: _Operation) -> int:
        key = next(self.keys)
        self.pending[key] = operation
        return key

    @Slot(object)
    def _deliver(self, key: int) -> None:
        operation = self.pending.pop(key)
        try:
            operation.finish()
        finally:
            operation.release()


class _Runnable(QRunnable):
    """Runs one operation on a worker; touches nothing but it and the dispatcher."""

    def __init__(self, dispatcher: _Dispatcher, key: int, operation: _Operation) -> None:
        super().__init__()
        self._dispatcher = dispatcher
        self._key = key
        self._operation: _Operation | None = operation

    def run(self) -> None:
        operation, self._operation = self._operation, None
        assert operation is not None
        try:
            operation.execute()
        finally:
            # The dispatcher keeps the operation until delivery, so this is never the last
            # reference; it is delivered (and released) even if `work` raised past Exception.
            del operation
            self._dispatcher.finished.emit(self._key)


_dispatcher: _Dispatcher | None = None


def _gui_dispatcher() -> _Dispatcher:
    """The dispatcher, made on first use; raises unless called on the GUI thread."""
    global _dispatcher
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("run_op needs a QApplication: create it before running ops")
    if QThread.currentThread() is not app.thread():
        raise RuntimeError("run_op must be called on the GUI thread, not on a worker")
    if _dispatcher is None:
        _dispatcher = _Dispatcher()
    return _dispatcher


def run_op(
    pool: QThreadPool,
    work: Callable[[], Any],
    *,
    receiver: QObject,
    success: Callable[[Any], object] | None = None,
    failure: Callable[[Exception], object] | None = None,
) -> None:
    """Run `work` on `pool`; call `success(result)` or `failure(error)` on the GUI thread.

    Call it on the GUI thread. No handler runs once `receiver` has been deleted.
    """
    dispatcher = _gui_dispatcher()
    operation = _Operation(work, receiver, success, failure)
    pool.start(_Runnable(dispatcher, dispatcher.add(operation), operation))
