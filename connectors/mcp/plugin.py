"""The MCP connector's plugin module: a connector per configured server, and `hearth mcp`.

Registering starts no server: each starts in the background once a front end starts the
connectors, so no command waits on a server it does not use (`hearth --help` starts none).
In safe mode (`--no-plugins`) no server is registered, since each is third-party code; the
commands stay, so `hearth mcp list` still shows what is configured.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import click

from hearth import Connector, HearthError, hookimpl, safe_mode
from hearth.connectors.mcp import config
from hearth.connectors.mcp.cli import mcp_commands

logger = logging.getLogger(__name__)


@hookimpl
def register_connectors(register: Callable[[Connector], None]) -> None:
    if safe_mode():
        return
    try:
        servers = config.load()
    except HearthError as error:
        logger.warning("MCP servers not loaded: %s", error)
        return
    if not servers.servers:
        return
    # Imported only when a server is configured; the MCP client itself only once one starts.
    from hearth.connectors.mcp.connector import idle_connectors
    from hearth.connectors.mcp.names import builtin_connector_names
    from hearth.connectors.mcp.runtime import McpRuntime

    for connector in idle_connectors(servers, McpRuntime(), builtin_connector_names()):
        register(connector)


@hookimpl
def register_commands(register: Callable[[click.Command], None]) -> None:
    register(mcp_commands())
