"""Loading plugins: built-in and third-party connectors and tools arrive through the same hooks.

Sources are plugin objects handed to `load_plugins` and entry points in the `hearth.plugins`
group. Entry points of the `hearth` distribution itself are built-in; any other distribution's
are third-party and are skipped while `HEARTH_DISABLE_PLUGINS` is set. A plugin that fails to
import, whose hook raises, or whose names clash is reported and skipped as a whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

import click
import pluggy

from hearth.connector import Connector, PluginError
from hearth.hookspecs import PROJECT, HookSpecs
from hearth.tools import Tool, ToolRegistry

ENTRY_POINT_GROUP = "hearth.plugins"
DISABLE_ENV = "HEARTH_DISABLE_PLUGINS"

_TOOL_HINT = " (decorate the function with @hearth.tool)"
_Item = TypeVar("_Item", Tool, Connector, click.Command)


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that was skipped, and why, in words a user can pass on to its author."""

    plugin: str
    error: str


@dataclass
class PluginReport:
    """What `load_plugins` did: plugins loaded, failed and left disabled; connectors found."""

    loaded: list[str] = field(default_factory=list)
    failed: list[PluginFailure] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    connectors: list[Connector] = field(default_factory=list)
    commands: list[click.Command] = field(default_factory=list)

    def connector(self, name: str) -> Connector | None:
        return next((c for c in self.connectors if c.name == name), None)


def load_plugins(
    registry: ToolRegistry, *, plugins: Iterable[object] = (), entry_points: bool = True
) -> PluginReport:
    """Register the given plugins, then the `hearth.plugins` entry points, into `registry`."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(HookSpecs)
    report = PluginReport()
    for plugin in plugins:
        _load_one(manager, registry, report, plugin, _plugin_name(plugin))
    if not entry_points:
        return report
    for point in _plugin_entry_points():
        if not is_builtin(point) and safe_mode():
            report.disabled.append(point.name)
            continue
        try:
            plugin = point.load()
        except (Exception, SystemExit) as error:
            report.failed.append(PluginFailure(point.name, _error_text(error)))
            continue
        _load_one(manager, registry, report, plugin, point.name)
    return report


def safe_mode() -> bool:
    """Whether Hearth runs without third-party code (`--no-plugins`): no plugin packages, no
    user plugin files, no MCP servers; only what ships with Hearth."""
    return bool(os.environ.get(DISABLE_ENV))


def is_builtin(point: EntryPoint) -> bool:
    """Whether an entry point ships with Hearth itself rather than with another package."""
    dist = point.dist
    return dist is not None and re.sub(r"[-_.]+", "-", dist.name).lower() == PROJECT


def _plugin_entry_points() -> list[EntryPoint]:
    # Built-ins first, so a third-party plugin can never take a built-in tool's name.
    found = entry_points(group=ENTRY_POINT_GROUP)
    return sorted(found, key=lambda point: not is_builtin(point))


def _load_one(
    manager: pluggy.PluginManager,
    registry: ToolRegistry,
    report: PluginReport,
    plugin: object,
    name: str,
) -> None:
    try:
        manager.register(plugin, name=name)
        tools, connectors, commands = _collect(manager, plugin)
        _commit(registry, report, tools, connectors)
        report.commands.extend(commands)
    except Exception as error:
        if manager.is_registered(plugin):
            manager.unregister(plugin)
        report.failed.append(PluginFailure(name, _error_text(error)))
        return
    report.loaded.append(name)


def _collect(
    manager: pluggy.PluginManager, plugin: object
) -> tuple[list[Tool], list[Connector], list[click.Command]]:
    """Run one plugin's hooks on their own, so another plugin's failure cannot reach it."""
    unknown = [c.name for c in manager.get_hookcallers(plugin) or () if not c.has_spec()]
    if unknown:
        raise PluginError(f"{', '.join(unknown)}: not a Hearth hook (typo?)")
    tools: list[Tool] = []
    connectors: list[Connector] = []
    commands: list[click.Command] = []
    _call_hook(manager.hook.register_tools, plugin, _registrar(tools, Tool, _TOOL_HINT))
    _call_hook(manager.hook.register_connectors, plugin, _registrar(connectors, Connector))
    _call_hook(manager.hook.register_commands, plugin, _registrar(commands, click.Command))
    for connector in connectors:
        tools.extend(connector.tools)
        commands.extend(connector.commands())
    return tools, connectors, commands


def _call_hook(caller: pluggy.HookCaller, plugin: object, register: Callable[[Any], None]) -> None:
    for implementation in caller.get_hookimpls():
        if implementation.plugin is plugin:
            arguments = {"register": register}
            implementation.function(*(arguments[name] for name in implementation.argnames))


def _registrar(sink: list[_Item], kind: type[_Item], hint: str = "") -> Callable[[_Item], None]:
    def register(item: _Item) -> None:
        if not isinstance(item, kind):
            raise PluginError(f"register() takes a {kind.__name__}, not {item!r}{hint}")
        sink.append(item)

    return register


def _commit(
    registry: ToolRegistry, report: PluginReport, tools: list[Tool], connectors: list[Connector]
) -> None:
    """Add everything or nothing: names are checked before the registry changes."""
    taken = {tool.name for tool in registry}
    for tool in tools:
        if tool.name in taken:
            raise PluginError(f"tool name {tool.name!r} is already taken")
        taken.add(tool.name)
    known = {connector.name for connector in report.connectors}
    for connector in connectors:
        if connector.name in known:
            raise PluginError(f"connector name {connector.name!r} is already taken")
        known.add(connector.name)
    for tool in tools:
        registry.add(tool)
    report.connectors.extend(connectors)


def _plugin_name(plugin: object) -> str:
    name = getattr(plugin, "__name__", None)
    return name if isinstance(name, str) else type(plugin).__name__


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
