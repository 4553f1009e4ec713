"""The plugins one `Assistant` runs, changed while it runs: turned on and off, reloaded, watched.

Every change holds one lock, so a reload from the folder watcher and a switch flipped in the
desktop app never interleave; each plugin's tools change in a single registry swap. Connectors a
change takes away are stopped; those it brings are started if connectors are running.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from hearth.paths import plugins_dir
from hearth.plugins.connector import Connector, PluginError
from hearth.plugins.loading import install, load_plugins, uninstall, user_candidates
from hearth.plugins.report import Change, PluginFailure, PluginInfo, PluginReport
from hearth.plugins.user_files import disabled_plugins, is_plugin_file, set_plugin_disabled
from hearth.tools import ToolRegistry

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.3


class PluginSet:
    """Loads every plugin into `registry` and keeps it, its report and its connectors in step."""

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        plugins: Iterable[object] = (),
        entry_points: bool = True,
        user_files: bool = True,
    ) -> None:
        self._registry = registry
        self._user_files = user_files
        self._lock = threading.RLock()
        self._started: list[Connector] = []
        self._running = False
        self._watcher: PluginWatcher | None = None
        self.report: PluginReport = load_plugins(
            registry, plugins=plugins, entry_points=entry_points, user_files=user_files
        )

    @property
    def registry(self) -> ToolRegistry:
        """The registry the plugins' tools live in (swapped in place on reload)."""
        return self._registry

    def infos(self) -> list[PluginInfo]:
        with self._lock:
            return list(self.report.infos)

    def set_enabled(self, name: str, enabled: bool) -> PluginInfo:
        """Turn a plugin on or off, now and for later starts; raises `PluginError` for a name
        no plugin has."""
        with self._lock:
            candidate = self.report.candidate(name)
            old = self.report.info(name)
            if candidate is None or old is None:
                raise PluginError(f"there is no plugin called {name!r}")
            set_plugin_disabled(name, not enabled)
            if enabled == (old.state != "disabled"):
                return old
            change = install(
                self._registry, self.report, candidate, disabled=disabled_plugins(), old=old
            )
            self._apply(change)
            return change.info

    def reload(self) -> list[PluginInfo]:
        """Load every user plugin file again: new and changed ones load, deleted ones go, and a
        broken one fails on its own while the rest keep working."""
        if not self._user_files:
            return self.infos()
        with self._lock:
            fresh = {candidate.location: candidate for candidate in user_candidates()}
            report = self.report
            for old in [info for info in report.infos if info.source == "user"]:
                if old.location not in fresh:
                    self._apply(uninstall(self._registry, report, old))
            report.candidates[:] = [c for c in report.candidates if c.source != "user"]
            report.candidates.extend(fresh.values())
            disabled = disabled_plugins()
            for location, candidate in fresh.items():
                known = next((i for i in report.infos if i.location == location), None)
                change = install(self._registry, report, candidate, disabled=disabled, old=known)
                self._apply(change)
            return list(report.infos)

    def watch(self, on_change: Callable[[], None] | None = None) -> None:
        """Reload when a plugin file is created, changed, deleted or moved, then call
        `on_change` (from the watcher's thread); a second call only replaces `on_change`."""
        if not self._user_files:
            return
        with self._lock:
            if self._watcher is not None:
                self._watcher.on_change = lambda: self._reloaded(on_change)
                return
            self._watcher = PluginWatcher(plugins_dir(), lambda: self._reloaded(on_change))

    def unwatch(self) -> None:
        with self._lock:
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()

    def start_connectors(self) -> None:
        """Start each connector's background work; a failure is reported, not raised."""
        with self._lock:
            self._running = True
            for connector in list(self.report.connectors):
                self._start(connector)

    def stop_connectors(self) -> None:
        with self._lock:
            self._running = False
            while self._started:
                self._started.pop().stop()

    def close(self) -> None:
        self.unwatch()
        self.stop_connectors()

    def _reloaded(self, on_change: Callable[[], None] | None) -> None:
        self.reload()
        if on_change is not None:
            on_change()

    def _apply(self, change: Change) -> None:
        for connector in change.removed:
            if connector in self._started:
                self._started.remove(connector)
                try:
                    connector.stop()
                except Exception:
                    log.exception("connector %s did not stop cleanly", connector.name)
        if self._running:
            for connector in change.added:
                self._start(connector)

    def _start(self, connector: Connector) -> None:
        if connector in self._started:
            return
        try:
            connector.start()
        except Exception as error:
            problem = f"could not start: {type(error).__name__}: {error}"
            self.report.failed.append(PluginFailure(connector.name, problem))
            return
        self._started.append(connector)


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
