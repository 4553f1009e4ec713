"""The hooks a Hearth plugin implements; built-in connectors use the same ones.

Mark implementations with `@hookimpl`: `register_connectors(register)` hands Hearth connector
objects, `register_tools(register)` stand-alone tools, `register_commands(register)` extra
`hearth <command>`s that belong to no connector.
"""

from __future__ import annotations

from collections.abc import Callable

import click
import pluggy

from hearth.plugins.connector import Connector
from hearth.tools import Tool

PROJECT = "hearth"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class HookSpecs:
    """The hooks a Hearth plugin may implement (mark implementations with `@hookimpl`)."""

    @hookspec
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        """Call `register(tool)` for each stand-alone tool the plugin offers."""

    @hookspec
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        """Call `register(connector)` with each connector object the plugin creates."""

    @hookspec
    def register_commands(self, register: Callable[[click.Command], None]) -> None:
        """Call `register(command)` for each `hearth <command>` that belongs to no connector."""
