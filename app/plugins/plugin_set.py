"""The plugins one `Assistant` runs, changed while it runs: turned on and off, reloaded, watched.

Every change holds one lock, so a reload from the folder watcher and a switch flipped in the
desktop app never interleave; each plugin's tools change in a single registry swap. Connectors a
change takes away are stopped; those it brings are started if connectors are running. A
connector whose tools change while it runs (an MCP server that came up) has them swapped into
the registry and its plugin's report the same way, when it says `connector_did_change()`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from hearth.errors import HearthError
from hearth.paths import plugins_dir
from hearth.plugins.connector import Connector, PluginError
from hearth.plugins.loading import install, load_plugins, uninstall, user_candidates
from hearth.plugins.report import Change, PluginFailure, PluginInfo, PluginReport
from hearth.plugins.user_files import disabled_plugins, set_plugin_disabled
from hearth.tools import ToolRegistry

if TYPE_CHECKING:
    from hearth.plugins.watcher import PluginWatcher

log = logging.getLogger(__name__)


class PluginSet:
    """Loads every plugin into `registry` and keeps it, its report and its connectors in step.

    With `load=False` nothing loads until `load()` (a front end calls it off its main thread,
    so its window or first answer need not wait); until then the registry and the report are
    empty, and what `load()` finds arrives in them in one step.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        plugins: Iterable[object] = (),
        entry_points: bool = True,
        user_files: bool = True,
        load: bool = True,
    ) -> None:
        self._registry = registry
        self._plugins = tuple(plugins)
        self._entry_points = entry_points
        self._user_files = user_files
        self._lock = threading.RLock()
        self._loading = threading.Lock()  # taken before `_lock`, never while holding it
        self._loaded = False
        self._started: list[Connector] = []
        self._running = False
        self._watcher: PluginWatcher | None = None
        self._subscriptions: dict[Connector, Callable[[], None]] = {}
        self.report = PluginReport()
        if load:
            self.load()

    @property
    def loaded(self) -> bool:
        """Whether `load()` has finished: the registry and report hold every plugin."""
        return self._loaded

    def load(self) -> None:
        """Load every plugin, once; a caller that comes while another loads waits for it."""
        with self._loading:
            if self._loaded:
                return
            staged = ToolRegistry()
            # The front ends this set serves run no `hearth <command>`: none is made.
            found = load_plugins(
                staged,
                plugins=self._plugins,
                entry_points=self._entry_points,
                user_files=self._user_files,
                commands=False,
            )
            with self._lock:
                self._registry.replace((), staged)
                self.report.adopt(found)
                for connector in found.connectors:
                    self._follow(connector)
                self._loaded = True
                if self._running:
                    for connector in found.connectors:
                        self._start(connector)
            # A connector may have changed its tools (a server came up) while it was staged.
            for connector in found.connectors:
                self._connector_changed(connector)

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
        self.load()
        with self._lock:
            candidate = self.report.candidate(name)
            old = self.report.info(name)
            if candidate is None or old is None:
                raise PluginError(f"there is no plugin called {name!r}")
            set_plugin_disabled(name, not enabled)
            if enabled == (old.state != "disabled"):
                return old
            change = install(
                self._registry,
                self.report,
                candidate,
                disabled=disabled_plugins(),
                old=old,
                commands=False,
            )
            self._apply(change)
            return change.info

    def reload(self) -> list[PluginInfo]:
        """Load every user plugin file again: new and changed ones load, deleted ones go, and a
        broken one fails on its own while the rest keep working."""
        if not self._user_files:
            return self.infos()
        self.load()
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
                change = install(
                    self._registry, report, candidate, disabled=disabled, old=known, commands=False
                )
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
            # Here, not at the top: watchdog's start-up is for a window that watches, not for
            # every command that loads plugins once.
            from hearth.plugins.watcher import PluginWatcher

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
        with self._lock:
            for unsubscribe in self._subscriptions.values():
                unsubscribe()
            self._subscriptions.clear()

    def _reloaded(self, on_change: Callable[[], None] | None) -> None:
        self.reload()
        if on_change is not None:
            on_change()

    def _follow(self, connector: Connector) -> None:
        if connector not in self._subscriptions:
            self._subscriptions[connector] = connector.add_change_listener(self._connector_changed)

    def _connector_changed(self, connector: Connector) -> None:
        """Swap the connector's tools as they are now into the registry, and into its plugin's
        info, so turning the plugin off later takes them all away."""
        with self._lock:
            if connector not in self.report.connectors:
                return
            old = self._registry.by_connector(connector.name)
            new = connector.tools
            if len(old) == len(new) and all(a is b for a, b in zip(old, new, strict=True)):
                return
            old_names = {tool.name for tool in old}
            try:
                self._registry.replace(old_names, new)
            except HearthError as error:
                problem = f"its tools could not be offered: {error}"
                self.report.failed.append(PluginFailure(connector.name, problem))
                return
            for info in list(self.report.infos):
                if connector.name in info.connectors and info.state == "loaded":
                    kept = tuple(name for name in info.tools if name not in old_names)
                    tools = kept + tuple(tool.name for tool in new)
                    self.report.record(replace(info, tools=tools), info)

    def _apply(self, change: Change) -> None:
        for connector in change.removed:
            unsubscribe = self._subscriptions.pop(connector, None)
            if unsubscribe is not None:
                unsubscribe()
            if connector in self._started:
                self._started.remove(connector)
                try:
                    connector.stop()
                except Exception:
                    log.exception("connector %s did not stop cleanly", connector.name)
        for connector in change.added:
            self._follow(connector)
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
