"""MCP fixtures: the test server configured in a tmp Hearth home, its call log, the plugin."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.agent.turns import Turn, scripted_turns
from tests.connectors.mcp.kit import McpPlugin, configure, stdio_server


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "calls.log"


@pytest.fixture
def servers_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave safe mode, which the test session turns on, so MCP servers may start."""
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS", raising=False)


@pytest.fixture
def mcp_plugin(servers_allowed: None, log: Path) -> Iterator[McpPlugin]:
    """The server "Notes" (a short call timeout, for the slow tool) behind the real plugin."""
    configure(Notes=stdio_server(log, timeout=2))
    made = McpPlugin()
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture
def turn(mcp_plugin: McpPlugin) -> Iterator[Turn]:
    with scripted_turns(mcp_plugin) as run:
        yield run
