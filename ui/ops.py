"""Background ops: a callable runs on a worker pool, its result comes back on the main thread.

Widgets never do I/O or inference themselves; they hand a callable to `run_op` with a success
and a failure handler (anki's ops). Signals carry the result across threads, so the handlers
always run on the thread that owns `receiver`, normally the main thread.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, SignalInstance


class _Relay(QObject):
    succeeded = Signal(object)
    failed = Signal(object)


class _Runnable(QRunnable):
    def __init__(self, work: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self._work = work
        self._relay = relay

    def run(self) -> None:
        try:
            result = self._work()
        except Exception as error:  # handed to the failure handler on the main thread
            self._deliver(self._relay.failed, error)
        else:
            self._deliver(self._relay.succeeded, result)

    @staticmethod
    def _deliver(signal: SignalInstance, value: object) -> None:
        # The receiver (and its relay) may have been deleted meanwhile: no one is left to tell.
        with contextlib.suppress(RuntimeError):
            signal.emit(value)


def run_op(
    pool: QThreadPool,
    work: Callable[[], Any],
    *,
    receiver: QObject,
    success: Callable[[Any], object] | None = None,
    failure: Callable[[Exception], object] | None = None,
) -> None:
    """Run `work` on `pool`; call `success(result)` or `failure(error)` on `receiver`'s thread.

    The relay is parented to `receiver`, so a handler never runs after its widget is gone.
    """
    relay = _Relay(receiver)

    def finish_ok(result: object) -> None:
        relay.deleteLater()
        if success is not None:
            success(result)

    def finish_failed(error: object) -> None:
        relay.deleteLater()
        if failure is not None:
            assert isinstance(error, Exception)
            failure(error)

    relay.succeeded.connect(finish_ok)
    relay.failed.connect(finish_failed)
    pool.start(_Runnable(work, relay))
