"""User plugins: single `.py` files in the plugins folder, and which plugins the user turned off.

A file either implements Hearth's hooks (`@hearth.hookimpl def register_connectors(register)`)
or simply defines `@hearth.tool` functions: those become one connector named after the file,
described by the module's docstring, each tool named `<connector>.<function>`. Files are run
from their source on every load, never through `sys.path` or cached bytecode, so an edit is
always what the next load sees. Files starting with `_` or `.` are left alone.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import json
import logging
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

from hearth.paths import config_dir, write_json_atomically
from hearth.plugins.connector import Connector, PluginError
from hearth.plugins.hookspecs import PROJECT, hookimpl
from hearth.tools import Tool

log = logging.getLogger(__name__)

MODULE_PACKAGE = "hearth_user_plugins"
SETTINGS_FILE = "plugins.json"
_HOOK_MARKER = f"{PROJECT}_impl"


def plugin_files(folder: Path) -> list[Path]:
    """The plugin files in `folder`, by name."""
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if is_plugin_file(path) and path.is_file())


def is_plugin_file(path: Path) -> bool:
    """Whether a file of this name would be loaded as a plugin (existing or not)."""
    return path.suffix == ".py" and not path.name.startswith(("_", "."))


def plugin_name(path: Path) -> str:
    """The file's stem as a plugin and connector name: lower-case letters, digits and `_`."""
    name = re.sub(r"[^a-z0-9_]+", "_", path.stem.lower())
    name = re.sub(r"^[^a-z]+", "", name).rstrip("_")
    return name or "plugin"


def load_plugin_file(path: Path) -> object:
    """Run the file as a fresh module and return the plugin object Hearth registers.

    Raises whatever the file raises (a SyntaxError included), or `PluginError` for a file that
    offers Hearth nothing.
    """
    name = plugin_name(path)
    module = _run_module(path, f"{MODULE_PACKAGE}.{name}")
    if any(hasattr(value, _HOOK_MARKER) for value in vars(module).values()):
        return module
    tools = [
        value
        for value in vars(module).values()
        if isinstance(value, Tool) and getattr(value.function, "__module__", "") == module.__name__
    ]
    if not tools:
        raise PluginError(
            f"{path.name} defines no @hearth.tool functions and no @hearth.hookimpl hooks"
        )
    return ToolsPlugin(_connector(name, module.__doc__, tools))


class ToolsPlugin:
    """The plugin of a file that only defines tools: one connector holding them all."""

    def __init__(self, connector: Connector) -> None:
        self.connector = connector

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(self.connector)


def _connector(name: str, doc: str | None, tools: Iterable[Tool]) -> Connector:
    prefix = f"{name}."
    named = [
        tool if tool.name.startswith(prefix) else dataclasses.replace(tool, name=prefix + tool.name)
        for tool in tools
    ]
    summary = inspect.cleandoc(doc or "").split("\n\n")[0]
    description = " ".join(summary.split()) or f"Tools from the plugin file {name}.py."
    return Connector(
        name=name, title=name.replace("_", " ").capitalize(), description=description, tools=named
    )


def _run_module(path: Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None:
        raise PluginError(f"{path.name} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    code = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    # In sys.modules while it runs and afterwards, as for any import: pydantic and dataclasses
    # look a class's module up there to resolve its annotations.
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        if sys.modules.get(module_name) is module:
            del sys.modules[module_name]
        raise
    return module


def disabled_plugins() -> frozenset[str]:
    """Names of the plugins the user turned off (`plugins.json`); unreadable means none."""
    stored = _settings()
    names = stored.get("disabled", [])
    if not isinstance(names, list):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))


def set_plugin_disabled(name: str, disabled: bool) -> None:
    """Turn a plugin off or back on for every later start; written atomically."""
    stored = _settings()
    names = set(disabled_plugins())
    if disabled:
        names.add(name)
    else:
        names.discard(name)
    stored["disabled"] = sorted(names)
    write_json_atomically(config_dir() / SETTINGS_FILE, stored)


def _settings() -> dict[str, object]:
    path = config_dir() / SETTINGS_FILE
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("ignoring %s: %s", path, error)
        return {}
    return stored if isinstance(stored, dict) else {}
