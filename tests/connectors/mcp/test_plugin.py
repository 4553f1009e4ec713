"""The plugin: a connector per server, safe mode, an unreachable server, streamable HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth import Connector
from hearth.connectors.mcp import plugin
from hearth.connectors.mcp.config import ServerConfig
from tests.connectors.mcp.kit import SERVER_APP, McpPlugin, calls, configure, stdio_server
from tests.connectors.mcp.server_app import LOG_ENV


def registered() -> list[Connector]:
    made: list[Connector] = []
    plugin.register_connectors(made.append)
    return made


def test_safe_mode_registers_no_servers(log: Path) -> None:
    configure(notes=stdio_server(log))
    assert registered() == []
    assert calls(log) == []


def test_each_server_is_a_connector_and_an_unreachable_one_has_no_tools(
    mcp_plugin: McpPlugin, log: Path
) -> None:
    configure(Mail=stdio_server(log), gone=ServerConfig(command=str(SERVER_APP.parent / "nope")))
    mcp_plugin.register_connectors(lambda _: None)
    mail, gone = mcp_plugin.connectors or []
    assert mail.name == "mcp_mail" and mail.title == "Mail (MCP)"
    assert [tool.name for tool in mail.tools] == [
        "mcp_mail.echo",
        "mcp_mail.add",
        "mcp_mail.read_note",
        "mcp_mail.crash",
        "mcp_mail.slow",
        "mcp_mail.fail",
    ]
    assert all(tool.effect == "write" for tool in mail.tools)
    assert mail.status_line() == "ready, 6 tools"
    assert gone.tools == ()
    assert (gone.status_line() or "").startswith("not answering: the MCP server 'gone' could not")


@pytest.fixture
def http_server(log: Path) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(SERVER_APP), str(port)],
        env={"PATH": "", LOG_ENV: str(log)},
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def test_streamable_http_lists_and_calls(
    mcp_plugin: McpPlugin, http_server: str, log: Path
) -> None:
    configure(web=ServerConfig(url=http_server))
    [web] = registered_into(mcp_plugin)
    assert web.status_line() == "ready, 6 tools"
    [add] = [tool for tool in web.tools if tool.name == "web.add"]
    assert add.invoke({"a": 40, "b": 2}) == "42"
    assert calls(log)[-1] == "add 40 2"


def registered_into(made: McpPlugin) -> list[Connector]:
    made.register_connectors(lambda _: None)
    return made.connectors or []
