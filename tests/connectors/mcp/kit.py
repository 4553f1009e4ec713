"""Helpers for the MCP connector tests: the servers' configs, a call log, the plugin."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hearth import Connector, hookimpl
from hearth.connectors.mcp import config, plugin
from hearth.connectors.mcp.config import ServerConfig
from hearth.connectors.mcp.connector import McpServerConnector
from tests.connectors.mcp.server_app import LOG_ENV

SERVER_APP = Path(__file__).with_name("server_app.py")
TASK_SERVER = Path(__file__).with_name("task_server.py")
SILENT_SERVER = Path(__file__).with_name("silent_server.py")
LATE_SERVER = Path(__file__).with_name("late_server.py")


def stdio_server(log: Path, **fields: Any) -> ServerConfig:
    """The test server over stdio, appending each call it sees to `log`."""
    return ServerConfig(
        command=sys.executable, args=[str(SERVER_APP)], env={LOG_ENV: str(log)}, **fields
    )


def time_server(*options: str) -> ServerConfig:
    """The official reference server mcp-server-time (PyPI), as a user would configure it."""
    return ServerConfig(
        command=sys.executable,
        args=["-m", "mcp_server_time", "--local-timezone", "Europe/Paris", *options],
    )


def task_server(log: Path) -> ServerConfig:
    """The 2025-11-25 era test server with a tool it runs only as a task."""
    return ServerConfig(command=sys.executable, args=[str(TASK_SERVER)], env={LOG_ENV: str(log)})


def silent_server(pid_file: Path, connect_timeout: float) -> ServerConfig:
    """A server that reads every request and answers none; it writes its pid to `pid_file`."""
    return ServerConfig(
        command=sys.executable,
        args=[str(SILENT_SERVER), str(pid_file)],
        connect_timeout=connect_timeout,
    )


def late_server(marker: Path) -> ServerConfig:
    """A server that fails to start until `marker` exists, then is mcp-server-time."""
    return ServerConfig(command=sys.executable, args=[str(LATE_SERVER), str(marker)])


def calls(log: Path) -> list[str]:
    """Every call the server saw, in order ("start" when it started)."""
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


class McpPlugin:
    """The real plugin module's connectors, made once and handed to every assistant; each
    server started and answered (or failed) once before the first is handed over, as a test
    that calls a server's tools at once needs."""

    def __init__(self) -> None:
        self.connectors: list[Connector] | None = None

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        if self.connectors is None:
            made: list[Connector] = []
            plugin.register_connectors(made.append)
            for connector in made:
                connector.start()
            for connector in made:
                assert isinstance(connector, McpServerConnector)
                connector.wait_for_first_try()
            self.connectors = made
        for connector in self.connectors:
            register(connector)

    def stop(self) -> None:
        for connector in self.connectors or ():
            connector.stop()


def configure(**servers: ServerConfig) -> None:
    """Write these servers to `mcp.json` in the test's Hearth home."""
    config.save(config.McpConfig.model_validate({"mcpServers": servers}))
