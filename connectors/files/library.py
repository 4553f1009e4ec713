"""The granted folders as a live library: settings, index, watcher and one indexer thread.

Only the indexer thread writes the index. Everything else — watcher events, a grant, a tool
that just moved a file, the periodic rescan — queues a job for it, so writes never race.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Literal

from hearth import HearthError, IndexStatus, SettingsStore, data_dir
from hearth.connectors.files.extract import Limits, TextExtractor
from hearth.connectors.files.fsops import Grant
from hearth.connectors.files.grants import Grants
from hearth.connectors.files.index import FileIndex
from hearth.connectors.files.scanner import Scanner
from hearth.connectors.files.settings import FilesSettings
from hearth.connectors.files.watch import FolderWatcher

log = logging.getLogger(__name__)

INDEX_FILE = "files-index.sqlite3"
Job = tuple[str, object]
Resting = Literal["idle", "watching", "polling"]


class FileLibrary:
    """The folders the user granted, kept indexed while started; `FilesConnector` owns one."""

    def __init__(
        self,
        store: SettingsStore | None = None,
        index_path: Path | None = None,
        limits: Limits | None = None,
        poll_seconds: float = 5.0,
    ) -> None:
        self.store = store or SettingsStore()
        self.granted = Grants(self.store, self._warn)
        self.index = FileIndex(index_path or data_dir() / INDEX_FILE)
        self.extractor = TextExtractor(limits or Limits())
        self.scanner = Scanner(self.index, self.extractor)
        self._poll_seconds = poll_seconds
        self._status = IndexStatus("idle")
        self._listeners: list[Callable[[IndexStatus], None]] = []
        self._jobs: queue.Queue[Job] = queue.Queue()
        self._busy = threading.Condition()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._watcher: FolderWatcher | None = None
        self._stopping = threading.Event()

    def settings(self) -> FilesSettings:
        return self.granted.settings()

    def grants(self) -> list[Grant]:
        """Every granted folder with its pin; a path below one is walked from the pinned folder."""
        return self.granted.pinned()

    def current(self) -> list[Grant]:
        """The grants whose path still leads to the folder the user granted."""
        return self.granted.current()

    def roots(self) -> list[Path]:
        """The granted folders that exist now and are still the folders granted, as real paths."""
        return [grant.path for grant in self.current()]

    def grant(self, folder: Path) -> Path:
        """Let Hearth see `folder` (and everything below it); returns its real path."""
        root = self.granted.add(folder)
        if self.started:
            assert self._watcher is not None
            self._watcher.unwatch(root)  # granted again: watch the folder it names now
            self._watch(root)
            self._submit(("scan", root))
        return root

    def indexed_count(self, root: Path) -> int:
        """How many entries below `root` the index holds."""
        return self.index.count(root)

    def revoke(self, folder: Path) -> None:
        """Stop seeing `folder`; its entries leave the index."""
        root = self.granted.remove(folder)
        if self._watcher is not None:
            self._watcher.unwatch(root)
        if self.started:
            self._submit(("forget", root))
        else:
            self._forget(root)

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Index every granted folder, then keep the index current until `stop()`."""
        if self._thread is not None:
            return
        self._stopping.clear()
        self._watcher = FolderWatcher(self.refresh, self._warn, self._poll_seconds)
        self._thread = threading.Thread(target=self._work, name="hearth-indexer", daemon=True)
        self._thread.start()
        for root in self.roots():
            self._watch(root)
        self.rescan()

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stopping.set()
        self._jobs.put(("stop", None))
        self._thread.join(timeout=30)
        self._thread = None
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self._set(IndexStatus("idle", warnings=self._status.warnings))

    def close(self) -> None:
        self.stop()
        self.extractor.close()
        self.index.close()

    def rescan(self) -> None:
        for root in self.roots():
            self._submit(("scan", root))

    def refresh(self, paths: set[Path]) -> None:
        """Re-check these paths soon (after a change event or a write by a tool)."""
        if self.started:
            self._submit(("update", frozenset(paths)))
        else:
            # A tool's change is done by now; a failed index update must not undo its success.
            self._attempt("update", frozenset(paths))

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until every queued job is done; False if that took longer than `timeout`."""
        with self._busy:
            return self._busy.wait_for(lambda: self._pending == 0, timeout)

    def status(self) -> IndexStatus:
        return self._status

    def subscribe(self, listener: Callable[[IndexStatus], None]) -> Callable[[], None]:
        """Call `listener` (from the indexer thread) on every status change."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _submit(self, job: Job) -> None:
        with self._busy:
            self._pending += 1
        self._jobs.put(job)

    def _work(self) -> None:
        interval = self.settings().rescan_minutes * 60
        while True:
            try:
                kind, payload = self._jobs.get(timeout=interval)
            except queue.Empty:
                self.rescan()
                continue
            if kind == "stop":
                return
            try:
                self._attempt(kind, payload)
            finally:
                self._finish_job()

    def _attempt(self, kind: str, payload: object) -> None:
        try:
            self._run(kind, payload)
        except HearthError as error:
            self._warn(str(error))
        except Exception:
            log.exception("the file indexer failed on %s; the next rescan retries", kind)

    def _finish_job(self) -> None:
        # The resting state is published before the count drops, so `wait_idle()` sees it.
        with self._busy:
            last = self._pending == 1
        if last:
            self._set(replace(self._status, state=self._resting_state(), root=None))
        with self._busy:
            self._pending -= 1
            self._busy.notify_all()

    def _run(self, kind: str, payload: object) -> None:
        if kind == "scan" and isinstance(payload, Path):
            for grant in self.current():
                if grant.path == payload:
                    self._scan(grant)
        elif kind == "update" and isinstance(payload, frozenset):
            self.scanner.update(payload, self.current())
        elif kind == "forget" and isinstance(payload, Path):
            self._forget(payload)

    def _scan(self, grant: Grant) -> None:
        root = grant.path

        def progress(done: int, total: int) -> None:
            self._set(replace(self._status, state="scanning", root=root, done=done, total=total))

        self._set(replace(self._status, state="scanning", root=root, done=0, total=0))
        self.scanner.scan(grant, progress, self._stopping)
        # Counted in the index, not added up per scan: a rescan retries unreadable files.
        self._set(replace(self._status, skipped=self.index.count_skipped()))

    def _forget(self, root: Path) -> None:
        with self.index.writing() as conn:
            self.index.remove(conn, root)

    def _watch(self, root: Path) -> None:
        assert self._watcher is not None
        try:
            self._watcher.watch(root)
        except OSError as error:
            self._warn(f"cannot watch {root} for changes ({error}); it is rescanned instead")

    def _resting_state(self) -> Resting:
        if self._watcher is None or not self.roots():
            return "idle"
        modes = {self._watcher.mode(root) for root in self.roots() if self._watching(root)}
        return "polling" if "polling" in modes else "watching"

    def _watching(self, root: Path) -> bool:
        return self._watcher is not None and root in self._watcher.folders

    def _warn(self, text: str) -> None:
        log.warning("%s", text)
        if text not in self._status.warnings:
            self._set(replace(self._status, warnings=(*self._status.warnings, text)))

    def _set(self, status: IndexStatus) -> None:
        self._status = status
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):
                listener(status)
