"""A server's tools from the last time it answered are offered before it answers again, for
that very server only; a changed server, or a damaged file, starts with none."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hearth import Connector
from hearth.connectors.mcp import plugin
from hearth.connectors.mcp.cli import mcp_commands
from hearth.connectors.mcp.connector import McpServerConnector
from tests.connectors.mcp.kit import configure, time_server

pytestmark = pytest.mark.usefixtures("servers_allowed")
TIME_TOOLS = ["time.get_current_time", "time.convert_time"]


def registered() -> McpServerConnector:
    made: list[Connector] = []
    plugin.register_connectors(made.append)
    [connector] = made
    assert isinstance(connector, McpServerConnector)
    return connector


def answered_once() -> McpServerConnector:
    configure(time=time_server())
    listed = CliRunner().invoke(mcp_commands(), ["list"], catch_exceptions=False)
    assert "ready, 2 tools" in listed.output
    return registered()


def test_the_last_listing_is_offered_before_the_server_starts() -> None:
    connector = answered_once()
    assert connector.status_line() == "not started"
    assert [tool.name for tool in connector.tools] == TIME_TOOLS
    assert connector.tools[0].told_by == "the MCP server 'time'"  # still the server's words


def test_a_changed_server_starts_with_no_tools() -> None:
    answered_once()
    configure(time=time_server("--local-timezone", "Asia/Tokyo"))
    assert registered().tools == ()


def test_a_damaged_file_is_passed_over() -> None:
    path = answered_once().known.path
    kept = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({"server": kept["server"], "tools": [{"nope": 2}]}))
    assert registered().tools == ()
    path.write_text('{"server": "', encoding="utf-8")
    assert registered().tools == ()
