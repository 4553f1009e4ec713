"""Watching the plugins folder: one call once an editor's burst of saves has settled."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from hearth.plugins.user_files import is_plugin_file

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.3


class PluginWatcher:
    """Calls `on_change` once the plugin files in `folder` have been quiet for `DEBOUNCE_S`
    after a change, on its own thread, until `stop()`."""

    def __init__(self, folder: Path, on_change: Callable[[], None]) -> None:
        self.on_change = on_change
        self._changed = threading.Event()
        self._stopped = threading.Event()
        self._observer = Observer()
        self._observer.schedule(_Events(self._changed), str(folder), recursive=False)
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="hearth-plugin-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._changed.set()
        self._observer.stop()
        self._observer.join(timeout=5)
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            self._changed.wait()
            # Editors save in bursts (write, rename, chmod): reload once it settles.
            while self._changed.is_set():
                self._changed.clear()
                if self._stopped.wait(DEBOUNCE_S):
                    return
            try:
                self.on_change()
            except Exception:
                log.exception("reloading the plugins failed")


class _Events(FileSystemEventHandler):
    def __init__(self, changed: threading.Event) -> None:
        self._changed = changed

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        if any(path and is_plugin_file(Path(os.fsdecode(path))) for path in paths):
            self._changed.set()
