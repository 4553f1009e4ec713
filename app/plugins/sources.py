"""Where plugins come from, found without loading any: entry points, the user's files, objects.

Entry points of the `hearth` distribution itself are built-in; any other distribution's, and
every user file, are third-party and are blocked while `HEARTH_DISABLE_PLUGINS` is set (safe
mode). Light on purpose: `hearth --help` asks which plugins exist without importing a plugin
or the tool machinery.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Literal

from hearth.paths import plugins_dir
from hearth.plugins.user_files import plugin_files, plugin_name

PROJECT = "hearth"
ENTRY_POINT_GROUP = "hearth.plugins"
DISABLE_ENV = "HEARTH_DISABLE_PLUGINS"
SAFE_MODE_REASON = "safe mode (--no-plugins): only what ships with Hearth runs"

Source = Literal["built-in", "package", "user", "given"]


@dataclass(frozen=True)
class Candidate:
    """A plugin Hearth knows of: where it comes from and how to load it. `blocked` says why it
    may not load at all (safe mode)."""

    name: str
    source: Source
    location: str
    load: Callable[[], object]
    blocked: str = ""


def safe_mode() -> bool:
    """Whether Hearth runs without third-party code (`--no-plugins`): no plugin packages, no
    user plugin files, no MCP servers; only what ships with Hearth."""
    return bool(os.environ.get(DISABLE_ENV))


def is_builtin(point: EntryPoint) -> bool:
    """Whether an entry point ships with Hearth itself rather than with another package."""
    dist = point.dist
    return dist is not None and re.sub(r"[-_.]+", "-", dist.name).lower() == PROJECT


def given_candidates(plugins: Iterable[object]) -> list[Candidate]:
    """Plugin objects handed over in code (tests, scripts)."""
    return [
        Candidate(_plugin_name(plugin), "given", _location(plugin), _returning(plugin))
        for plugin in plugins
    ]


def entry_point_candidates() -> list[Candidate]:
    """The `hearth.plugins` entry points, built-ins first so that a third-party plugin can
    never take a built-in tool's name; third-party ones are blocked in safe mode."""
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: not is_builtin(point))
    return [
        Candidate(
            point.name,
            "built-in" if is_builtin(point) else "package",
            point.value,
            point.load,
            "" if is_builtin(point) or not safe_mode() else SAFE_MODE_REASON,
        )
        for point in found
    ]


def user_candidates() -> list[Candidate]:
    """The files in the plugins folder as they are now; none is imported in safe mode."""
    blocked = SAFE_MODE_REASON if safe_mode() else ""
    return [
        Candidate(plugin_name(path), "user", str(path), _file_loader(path), blocked)
        for path in plugin_files(plugins_dir())
    ]


def _returning(plugin: object) -> Callable[[], object]:
    return lambda: plugin


def _file_loader(path: Path) -> Callable[[], object]:
    def load() -> object:
        # Here, not at the top: running a file needs the tool machinery, listing files does not.
        from hearth.plugins.file_loading import load_plugin_file

        return load_plugin_file(path)

    return load


def _plugin_name(plugin: object) -> str:
    name = getattr(plugin, "__name__", None)
    return name if isinstance(name, str) else type(plugin).__name__


def _location(plugin: object) -> str:
    name = getattr(plugin, "__name__", None)
    if isinstance(name, str):
        return name
    kind = type(plugin)
    return f"{kind.__module__}:{kind.__qualname__}"
