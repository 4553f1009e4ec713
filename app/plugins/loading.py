"""Loading plugins: built-in and third-party connectors and tools arrive through the same hooks.

Sources are plugin objects handed to `load_plugins`, entry points in the `hearth.plugins` group
and the user's plugin files (see `hearth.plugins.sources`). A plugin the user turned off is not
imported. A plugin that fails to import, whose hook raises, or whose names clash is reported and
skipped as a whole. `install` loads one plugin again in place of its previous self, in a single
swap.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from typing import Any, TypeVar

import click
import pluggy

from hearth.plugins import sources
from hearth.plugins.connector import Connector, PluginError
from hearth.plugins.file_loading import load_plugin_file
from hearth.plugins.hookspecs import PROJECT, HookSpecs
from hearth.plugins.report import Change, Parts, PluginFailure, PluginInfo, PluginReport
from hearth.plugins.sources import (
    DISABLE_ENV,
    ENTRY_POINT_GROUP,
    SAFE_MODE_REASON,
    Candidate,
    entry_point_candidates,
    given_candidates,
    is_builtin,
    safe_mode,
    user_candidates,
)
from hearth.plugins.user_files import disabled_plugins
from hearth.tools import Tool, ToolRegistry

__all__ = [
    "DISABLE_ENV",
    "ENTRY_POINT_GROUP",
    "SAFE_MODE_REASON",
    "Candidate",
    "Change",
    "PluginFailure",
    "PluginInfo",
    "PluginReport",
    "entry_point_candidates",
    "given_candidates",
    "install",
    "is_builtin",
    "load_plugins",
    "safe_mode",
    "uninstall",
    "user_candidates",
]

TURNED_OFF_REASON = "turned off (`hearth plugins enable {name}` turns it back on)"

# Hearth's own frames, left out of a failed plugin's traceback: they tell its author nothing.
_LOADER_FILES = frozenset({__file__, sources.__file__, load_plugin_file.__code__.co_filename})
_TOOL_HINT = " (decorate the function with @hearth.tool)"
_Item = TypeVar("_Item", Tool, Connector, click.Command)


def load_plugins(
    registry: ToolRegistry,
    *,
    plugins: Iterable[object] = (),
    entry_points: bool = True,
    user_files: bool = True,
    disabled: Collection[str] | None = None,
    only: Collection[str] | None = None,
    commands: bool = True,
) -> PluginReport:
    """Register the given plugins, the `hearth.plugins` entry points, then the user's plugin
    files into `registry`; `disabled` (by default the user's choice) names those to skip.

    `only` names the plugins to load (one command's, say); the rest are not even listed.
    Without `commands` no plugin's `hearth <command>`s are made: a front end that runs none
    does not pay for importing them.
    """
    report = PluginReport()
    off = disabled_plugins() if disabled is None else frozenset(disabled)
    report.candidates.extend(given_candidates(plugins))
    if entry_points:
        report.candidates.extend(entry_point_candidates())
    if user_files:
        report.candidates.extend(user_candidates())
    if only is not None:
        report.candidates[:] = [c for c in report.candidates if c.name in only]
    for candidate in report.candidates:
        install(registry, report, candidate, disabled=off, commands=commands)
    return report


def install(
    registry: ToolRegistry,
    report: PluginReport,
    candidate: Candidate,
    *,
    disabled: Collection[str] = (),
    old: PluginInfo | None = None,
    commands: bool = True,
) -> Change:
    """Load `candidate` in place of `old` (its previous self, loaded, failed or off): its tools
    replace the old ones in one registry swap, so no call ever sees half of a plugin."""
    info, tools, parts = _prepare(registry, report, candidate, disabled, old, commands)
    gone = report.parts.pop(old.name, None) if old is not None and old.state == "loaded" else None
    old_tools = old.tools if gone is not None and old is not None else ()
    registry.replace(old_tools, tools)
    removed = gone.connectors if gone is not None else []
    report.connectors[:] = [c for c in report.connectors if c not in removed] + parts.connectors
    dropped = gone.commands if gone is not None else []
    report.commands[:] = [c for c in report.commands if c not in dropped] + parts.commands
    if info.state == "loaded":
        report.parts[info.name] = parts
    report.record(info, old)
    return Change(info, tuple(removed), tuple(parts.connectors))


def uninstall(registry: ToolRegistry, report: PluginReport, old: PluginInfo) -> Change:
    """Forget a plugin entirely (its file was deleted): tools, connectors, commands, info."""
    gone = report.parts.pop(old.name, None) if old.state == "loaded" else None
    if gone is not None:
        registry.replace(old.tools, ())
        report.connectors[:] = [c for c in report.connectors if c not in gone.connectors]
        report.commands[:] = [c for c in report.commands if c not in gone.commands]
    report.infos[:] = [info for info in report.infos if info is not old]
    report.forget(old.name)
    return Change(old, tuple(gone.connectors if gone else ()))


def _prepare(
    registry: ToolRegistry,
    report: PluginReport,
    candidate: Candidate,
    disabled: Collection[str],
    old: PluginInfo | None,
    commands: bool,
) -> tuple[PluginInfo, list[Tool], Parts]:
    base = PluginInfo(candidate.name, candidate.source, "disabled", location=candidate.location)
    nothing = Parts([], [])
    if candidate.blocked:
        return replace(base, error=candidate.blocked), [], nothing
    if candidate.name in disabled:
        return replace(base, error=TURNED_OFF_REASON.format(name=candidate.name)), [], nothing
    try:
        if any(i.name == candidate.name and i is not old for i in report.infos):
            raise PluginError(f"another plugin is already called {candidate.name!r}")
        tools, connectors, made = _collect(candidate.load(), candidate.name, commands)
        _check_names(registry, report, tools, connectors, old)
    except (Exception, SystemExit) as error:
        failed = replace(base, state="failed", error=_error_text(error), details=_details(error))
        return failed, [], nothing
    tool_names = tuple(tool.name for tool in tools)
    names = tuple(connector.name for connector in connectors)
    return (
        replace(base, state="loaded", tools=tool_names, connectors=names),
        tools,
        Parts(connectors, made),
    )


def _collect(
    plugin: object, name: str, with_commands: bool
) -> tuple[list[Tool], list[Connector], list[click.Command]]:
    """Run one plugin's hooks on their own, so another plugin's failure cannot reach it."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(HookSpecs)
    manager.register(plugin, name=name)
    unknown = [c.name for c in manager.get_hookcallers(plugin) or () if not c.has_spec()]
    if unknown:
        raise PluginError(f"{', '.join(unknown)}: not a Hearth hook (typo?)")
    tools: list[Tool] = []
    connectors: list[Connector] = []
    commands: list[click.Command] = []
    _call_hook(manager.hook.register_tools, plugin, _registrar(tools, Tool, _TOOL_HINT))
    _call_hook(manager.hook.register_connectors, plugin, _registrar(connectors, Connector))
    if with_commands:
        _call_hook(manager.hook.register_commands, plugin, _registrar(commands, click.Command))
    for connector in connectors:
        tools.extend(connector.tools)
        if with_commands:
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


def _check_names(
    registry: ToolRegistry,
    report: PluginReport,
    tools: list[Tool],
    connectors: list[Connector],
    old: PluginInfo | None,
) -> None:
    """Everything or nothing: names are checked before the registry changes."""
    replaced = set(old.tools if old is not None and old.state == "loaded" else ())
    taken = {tool.name for tool in registry} - replaced
    for tool in tools:
        if tool.name in taken:
            raise PluginError(f"tool name {tool.name!r} is already taken")
        taken.add(tool.name)
    leaving = set(old.connectors if old is not None and old.state == "loaded" else ())
    known = {connector.name for connector in report.connectors} - leaving
    for connector in connectors:
        if connector.name in known:
            raise PluginError(f"connector name {connector.name!r} is already taken")
        known.add(connector.name)


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _details(error: BaseException) -> str:
    # Hearth's own loading frames come first and tell the plugin's author nothing.
    frames = error.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename in _LOADER_FILES:
        frames = frames.tb_next
    return "".join(traceback.format_exception(type(error), error, frames))
