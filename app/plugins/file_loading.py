"""Running one user plugin file: its hooks, or its `@hearth.tool` functions as one connector.

A file either implements Hearth's hooks (`@hearth.hookimpl def register_connectors(register)`)
or simply defines `@hearth.tool` functions: those become one connector named after the file,
described by the module's docstring, each tool named `<connector>.<function>`. Files are run
from their source on every load, never through `sys.path` or cached bytecode, so an edit is
always what the next load sees.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

from hearth.plugins.connector import Connector, PluginError
from hearth.plugins.hookspecs import PROJECT, hookimpl
from hearth.plugins.user_files import plugin_name
from hearth.tools import Tool

MODULE_PACKAGE = "hearth_user_plugins"
_HOOK_MARKER = f"{PROJECT}_impl"


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
