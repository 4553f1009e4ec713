"""MCP tools through the whole agent, over real stdio: a scripted model's calls pass the real
gate, the user's answers and the real test server, whose log shows what it really ran."""

from __future__ import annotations

from pathlib import Path

from hearth.agent import ConsentAsked, Deny, ToolRan
from hearth.consent import fenced_source, unfence
from tests.app.agent.kit import of
from tests.app.agent.turns import Turn
from tests.connectors.mcp.kit import McpPlugin, calls
from tests.connectors.mcp.server_app import INJECTION

LABEL = "the MCP server 'Notes', tool Read-Note"


def test_a_read_only_claim_still_asks_and_runs_once_allowed(turn: Turn, log: Path) -> None:
    _, steps = turn("What does the note say?", ("notes.read_note", {}))
    [asked] = of(steps, ConsentAsked)
    request = asked.request
    assert request.tool.effect == "write"
    preview = request.preview or ""
    assert "MCP server: Notes" in preview and "Tool: Read-Note" in preview
    assert "The server claims: read-only (not checked by Hearth)" in preview
    [ran] = of(steps, ToolRan)
    assert ran.outcome == "executed" and ran.result.startswith("Shopping: milk, eggs.")
    assert calls(log) == ["start", "read_note"]


def test_a_denied_call_never_reaches_the_server(turn: Turn, log: Path) -> None:
    _, steps = turn("Echo hi.", ("notes.echo", {"text": "hi"}), answer=lambda _: Deny("no"))
    [ran] = of(steps, ToolRan)
    assert ran.outcome == "denied"
    assert "echo hi" not in calls(log)


def test_output_is_fenced_and_later_side_effects_ask_despite_a_rule(turn: Turn, log: Path) -> None:
    echo = ("notes.echo", {"text": "hi"})
    _, steps = turn(
        "Read the note, then echo hi.",
        ("notes.read_note", {}),
        echo,
        rules=(("notes.echo", None), ("notes.read_note", None)),
    )
    read, echoed = of(steps, ToolRan)
    assert fenced_source(read.observation) == LABEL
    assert INJECTION in unfence(read.observation) and read.observation.startswith("<untrusted")
    asked = [step.request for step in of(steps, ConsentAsked)]
    assert [request.tool.name for request in asked] == ["notes.read_note", "notes.echo"]
    assert LABEL in asked[-1].verdict.reason
    assert echoed.outcome == "executed"


def test_the_servers_descriptions_count_as_read_so_even_a_ruled_call_asks(turn: Turn) -> None:
    """The model reads each offered tool's description, written by the server: outside text.
    The turn offers the server's every tool, so every description counts as read."""
    _, steps = turn("Echo hi.", ("notes.echo", {"text": "hi"}), rules=(("notes.echo", None),))
    [asked] = of(steps, ConsentAsked)
    assert "the description of notes.add, written by the MCP server" in asked.request.reason
    _, trusted = turn(
        "Echo hi.", ("notes.echo", {"text": "hi"}), rules=(("notes.echo", None),), after=True
    )
    assert of(trusted, ConsentAsked) == []  # a rule made for after untrusted content still runs


def test_a_read_only_claim_does_not_escape_the_rule_of_two(turn: Turn) -> None:
    _, steps = turn(
        "Read the note twice.",
        ("notes.read_note", {}),
        ("notes.read_note", {}),
        rules=(("notes.read_note", None),),
    )
    asked = [step.request.tool.name for step in of(steps, ConsentAsked)]
    assert asked == ["notes.read_note", "notes.read_note"]
    assert [ran.outcome for ran in of(steps, ToolRan)] == ["executed", "executed"]


def test_a_crash_is_a_tool_failure_and_the_next_call_reconnects(turn: Turn, log: Path) -> None:
    _, steps = turn("Crash, then add.", ("notes.crash", {}), ("notes.add", {"a": 2, "b": 3}))
    crashed, added = of(steps, ToolRan)
    assert crashed.outcome == "failed"
    assert "the MCP server 'Notes' stopped" in crashed.result
    assert added.outcome == "executed" and added.result == "5"
    assert calls(log) == ["start", "crash", "start", "add 2 3"]


def test_a_slow_server_times_out_and_hearth_goes_on(
    turn: Turn, log: Path, mcp_plugin: McpPlugin
) -> None:
    _, steps = turn(
        "Be slow, then echo.", ("notes.slow", {"seconds": 20}), ("notes.echo", {"text": "back"})
    )
    slow, echoed = of(steps, ToolRan)
    assert slow.outcome == "failed"
    assert "the MCP server 'Notes' did not answer within 2 s" in slow.result
    assert echoed.outcome == "executed" and echoed.result == "back"
    [connector] = mcp_plugin.connectors or []
    assert connector.status_line() == "ready, 6 tools"


def test_a_server_error_is_a_tool_failure_with_its_words(turn: Turn) -> None:
    _, steps = turn("Fail.", ("notes.fail", {}))
    [ran] = of(steps, ToolRan)
    assert ran.outcome == "failed" and "the note store is locked" in ran.result
