"""Live change events for granted folders, with a polling fallback when the OS runs out.

Linux limits inotify watches and instances per user. When a folder cannot be watched live,
it is polled instead and a warning says so; the periodic rescan catches anything either misses.
Polling never walks into a linked folder, and the scanner re-checks every changed path from the
grant down without following links, so an event never makes anything outside searchable.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch
from watchdog.observers.polling import PollingObserverVFS

from hearth.connectors.files.fsops import FOLDER, SUPPORTED

log = logging.getLogger(__name__)

_LIMIT_ERRORS = (errno.ENOSPC, errno.EMFILE)
DEBOUNCE_SECONDS = 0.3


class _Collector(FileSystemEventHandler):
    def __init__(self, sink: Callable[[set[Path]], None]) -> None:
        self._sink = sink

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        changed = {Path(_text(event.src_path))}
        if getattr(event, "dest_path", ""):
            changed.add(Path(_text(event.dest_path)))
        self._sink(changed)


class FolderWatcher:
    """Watches folders and hands batches of changed paths to `on_changes`, debounced."""

    def __init__(
        self,
        on_changes: Callable[[set[Path]], None],
        on_warning: Callable[[str], None],
        poll_seconds: float = 5.0,
    ) -> None:
        self._on_changes = on_changes
        self._on_warning = on_warning
        self._poll_seconds = poll_seconds
        self._handler = _Collector(self._collect)
        self._live: BaseObserver | None = None
        self._polling: BaseObserver | None = None
        self._watches: dict[Path, tuple[BaseObserver, ObservedWatch]] = {}
        self._pending: set[Path] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._flusher = threading.Thread(target=self._flush_loop, name="hearth-watch", daemon=True)
        self._flusher.start()

    def watch(self, folder: Path) -> str:
        """Start watching `folder`; returns "live" or "polling"."""
        if folder in self._watches:
            return self.mode(folder)
        try:
            observer = self._live_observer()
            self._watches[folder] = (
                observer,
                observer.schedule(self._handler, str(folder), recursive=True),
            )
            return "live"
        except OSError as error:
            if error.errno not in _LIMIT_ERRORS:
                raise
            self._on_warning(
                f"{folder} is too large to watch live ({error.strerror or error}); Hearth "
                f"checks it for changes every {self._poll_seconds:g} s instead. On Linux, "
                "raising fs.inotify.max_user_watches restores live updates."
            )
        observer = self._polling_observer()
        self._watches[folder] = (
            observer,
            observer.schedule(self._handler, str(folder), recursive=True),
        )
        return "polling"

    @property
    def folders(self) -> list[Path]:
        return list(self._watches)

    def mode(self, folder: Path) -> str:
        observer, _ = self._watches[folder]
        return "polling" if observer is self._polling else "live"

    def unwatch(self, folder: Path) -> None:
        found = self._watches.pop(folder, None)
        if found is not None:
            observer, watch = found
            observer.unschedule(watch)

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        for observer in (self._live, self._polling):
            if observer is not None:
                observer.stop()
                observer.join(timeout=5)
        self._flusher.join(timeout=5)
        self._watches.clear()

    def _live_observer(self) -> BaseObserver:
        if self._live is None:
            observer = Observer()
            observer.start()
            self._live = observer
        return self._live

    def _polling_observer(self) -> BaseObserver:
        if self._polling is None:
            # lstat and a listing that refuses links: polling never walks into a linked folder.
            observer = PollingObserverVFS(
                os.lstat, _list_without_following, polling_interval=self._poll_seconds
            )
            observer.start()
            self._polling = observer
        return self._polling

    def _collect(self, paths: set[Path]) -> None:
        with self._lock:
            self._pending |= paths
        self._wake.set()

    def _flush_loop(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait()
            if self._stopped.is_set():
                return
            # Let a burst (an unzip, a save that writes then renames) settle into one batch.
            self._stopped.wait(DEBOUNCE_SECONDS)
            with self._lock:
                batch, self._pending = self._pending, set()
                self._wake.clear()
            if batch:
                try:
                    self._on_changes(batch)
                except Exception:
                    log.exception("handling file changes failed; the next rescan catches up")


def _list_without_following(path: str | None) -> Iterator[os.DirEntry[str]]:
    """os.scandir(path), refusing a path that ends in a link (as if it were not a folder)."""
    if not SUPPORTED:  # no O_DIRECTORY: the scanner's own walk still never follows a link
        with os.scandir(path) as entries:
            yield from entries
        return
    try:
        descriptor = os.open(path or ".", FOLDER)
    except OSError as error:
        if error.errno == errno.ELOOP:  # some systems say ELOOP for a link opened O_NOFOLLOW
            raise NotADirectoryError(errno.ENOTDIR, "a symbolic link", path) from None
        raise
    try:
        with os.scandir(descriptor) as entries:
            yield from entries
    finally:
        os.close(descriptor)


def _text(path: str | bytes) -> str:
    return path.decode() if isinstance(path, bytes) else path
