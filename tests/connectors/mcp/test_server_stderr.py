"""What a stdio server writes to its stderr goes to its log under Hearth's data folder, never to
the terminal: a greeting as it starts, the reference server mcp-server-time's log lines for a
failed call, and the words of a server that cannot start, which Hearth's own error quotes.

Hearth runs in a process of its own here, its stderr a pipe standing for the terminal: a server
inherits the real descriptor, which pytest's capture cannot stand in for.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.connectors.mcp.server_log import ServerLog
from tests.connectors.mcp.kit import McpPlugin, configure, task_server, time_server
from tests.connectors.mcp.task_server import GREETING

ON_MARS = ("time.get_current_time", {"timezone": "Mars/Olympus_Mons"})
SERVERS_LOG_LINE = "Tool 'get_current_time' failed"  # mcp-server-time's, at INFO
NOT_A_ZONE = "Error: invalid --local-timezone 'Nowhere/Else': not a known IANA timezone name"
CALL_ON_MARS = f"""
from hearth import ToolFailure
from hearth.connectors.mcp import plugin
made = []
plugin.register_connectors(made.append)
[time] = made
time.wait_for_first_try()
[tool] = [tool for tool in time.tools if tool.name == {ON_MARS[0]!r}]
try:
    tool.invoke({ON_MARS[1]!r})
except ToolFailure as failure:
    print(f"Error: {{failure}}")
time.stop()
"""
HEARTH = "from hearth.cli.main import main; main()"


def in_a_process(code: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Python `code` run with this test's Hearth home, safe mode off (`servers_allowed`)."""
    return subprocess.run(
        [sys.executable, "-c", code, *arguments],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.usefixtures("servers_allowed")
def test_a_failed_call_prints_nothing_but_hearths_own_error(hearth_home: Path) -> None:
    configure(time=time_server())
    done = in_a_process(CALL_ON_MARS)
    assert done.returncode == 0 and done.stderr == ""
    [error] = done.stdout.splitlines()
    assert error.startswith("Error: the MCP server 'time' reported an error from get_current_time")
    log = ServerLog("time").path
    assert log.is_relative_to(hearth_home) and SERVERS_LOG_LINE in log.read_text()


@pytest.mark.usefixtures("servers_allowed")
def test_a_server_that_cannot_start_is_explained_by_its_own_words() -> None:
    configure(time=time_server("--local-timezone", "Nowhere/Else"))
    plugin = McpPlugin()
    try:
        plugin.register_connectors(lambda _: None)
        [connector] = plugin.connectors or []
        status = connector.status_line() or ""
    finally:
        plugin.stop()
    assert status.startswith("not answering: the MCP server 'time' could not start: ")
    assert f"; it said: {NOT_A_ZONE}; retrying in " in status
    listed = in_a_process(HEARTH, "mcp", "list")
    assert listed.stderr == "" and f"it said: {NOT_A_ZONE}\n" in listed.stdout


@pytest.mark.usefixtures("servers_allowed")
def test_a_greeting_on_stderr_stays_out_of_every_command(log: Path) -> None:
    configure(tasks=task_server(log))
    for command in (["list"], ["tools", "tasks"]):
        done = in_a_process(HEARTH, "mcp", *command)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert "lookup" in done.stdout
    lines = ServerLog("tasks").path.read_text().splitlines()
    starts = [line for line in lines if line.endswith("Hearth starts the MCP server 'tasks'")]
    assert len(starts) >= 2 and lines.count(GREETING) == len(starts)  # each start greeted
