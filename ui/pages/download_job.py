"""A download on the worker pool, reporting progress to the main thread; cancellable.

It runs any `fetch(progress, cancel)`: a GGUF (`DownloadJob.of_model`) or a speech model folder.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from hearth import CatalogEntry, DownloadCancelled, DownloadProgress, Models, ProgressCallback
from hearth.ui.ops import run_op

PROGRESS_INTERVAL_S = 0.1

Fetch = Callable[[ProgressCallback, threading.Event], Path]


class DownloadJob(QObject):
    """Runs one download; emits `progressed`, then `finished`, `cancelled` or `failed`."""

    progressed = Signal(object)  # DownloadProgress, at most every PROGRESS_INTERVAL_S
    finished = Signal(object)  # the installed Path
    cancelled = Signal(str)  # what is kept for resuming, in words
    failed = Signal(object)  # the exception

    def __init__(self, fetch: Fetch, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fetch = fetch
        self._cancel = threading.Event()
        self._last_report = 0.0
        stop = self._cancel
        # A job deleted with its page must not keep downloading for nobody.
        self.destroyed.connect(lambda *_: stop.set())

    def start(self, pool: QThreadPool) -> None:
        run_op(pool, self._download, receiver=self, success=self._done, failure=self._failed)

    def cancel(self) -> None:
        """Stop after the current chunk; the bytes so far are kept for resuming."""
        self._cancel.set()

    @property
    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    @classmethod
    def of_model(
        cls, models: Models, entry: CatalogEntry, parent: QObject | None = None
    ) -> DownloadJob:
        """A job that downloads a catalog model's GGUF file."""
        return cls(
            lambda progress, cancel: models.download(entry, progress=progress, cancel=cancel),
            parent,
        )

    def _download(self) -> Path:
        return self._fetch(self._report, self._cancel)

    def _report(self, progress: DownloadProgress) -> None:
        # Runs on the worker: the signal is queued to the main thread.
        now = time.monotonic()
        last = progress.bytes_done >= progress.bytes_total
        if self._cancel.is_set() or (now - self._last_report < PROGRESS_INTERVAL_S and not last):
            return
        self._last_report = now
        self.progressed.emit(progress)

    def _done(self, path: Path) -> None:
        self.finished.emit(path)

    def _failed(self, error: Exception) -> None:
        if isinstance(error, DownloadCancelled):
            self.cancelled.emit(str(error))
        else:
            self.failed.emit(error)
