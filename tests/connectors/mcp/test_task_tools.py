"""A tool its server runs only as a task (`execution.taskSupport: "required"`) is never offered to
the model: Hearth calls tools directly, which the server refuses for it. Hearth says which tool
it left out and why: in the connector's status, `hearth mcp list` and `hearth mcp tools`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.agent import CallMalformed, ToolRan
from hearth.connectors.mcp.cli import mcp_commands
from hearth.connectors.mcp.tools import TASK_ONLY
from tests.app.agent.kit import of
from tests.app.agent.turns import scripted_turns
from tests.connectors.mcp.kit import McpPlugin, calls, configure, task_server


@pytest.fixture
def tasks(servers_allowed: None, log: Path) -> Iterator[McpPlugin]:
    configure(tasks=task_server(log))
    made = McpPlugin()
    try:
        yield made
    finally:
        made.stop()


def test_a_task_only_tool_is_not_offered_and_the_status_says_why(tasks: McpPlugin) -> None:
    tasks.register_connectors(lambda _: None)
    [connector] = tasks.connectors or []
    assert [tool.name for tool in connector.tools] == ["tasks.lookup"]  # "optional" stays
    assert connector.status_line() == f"ready, 1 tool; research left out: {TASK_ONLY}"
    [left_out] = [item for item in connector.status_items() if item.label == "research"]
    assert (left_out.value, left_out.detail, left_out.available) == ("left out", TASK_ONLY, False)


def test_the_model_cannot_call_it_and_the_server_never_sees_it(tasks: McpPlugin, log: Path) -> None:
    with scripted_turns(tasks) as turn:
        _, steps = turn(
            "Research bees with the tasks server, then look up hive.",
            ("tasks.research", {"topic": "bees"}),
            ("tasks.lookup", {"word": "hive"}),
        )
    [refused] = of(steps, CallMalformed)
    assert "unknown tool 'tasks.research'" in refused.reason
    [ran] = of(steps, ToolRan)
    assert ran.outcome == "executed" and ran.result == "hive: a word"
    assert calls(log) == ["lookup"]


def test_the_commands_say_it_is_left_out(tasks: McpPlugin) -> None:
    listed = CliRunner().invoke(mcp_commands(), ["list"], catch_exceptions=False)
    assert "  ready, 1 tool: lookup\n" in listed.output
    assert f"  left out: research: {TASK_ONLY}\n" in listed.output
    tools = CliRunner().invoke(mcp_commands(), ["tools", "tasks"], catch_exceptions=False)
    research = "research: Research a topic at length, as a task the client polls."
    assert f"{research}\n  claims: none\n  left out: {TASK_ONLY}\n" in tools.output
