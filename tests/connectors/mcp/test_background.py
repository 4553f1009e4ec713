"""Servers start in the background: a server that never answers holds up no command, one that
is down at start comes back by itself with its tools, and nothing outlives Hearth.

Two real processes stand for the two troubles: `silent_server.py` reads every request and
answers none, and `late_server.py` fails to start until a marker file exists, then is the
reference server mcp-server-time. Each assertion is on order (what state a server was in when
a command ended), never on time; speed is measured in tests/bench.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from hearth import Connector, hookimpl
from hearth.agent import AgentConfig, AllowOnce, ToolRan
from hearth.assistant import Assistant
from hearth.cli import ask_cmd, chat
from hearth.connectors.mcp import plugin
from hearth.connectors.mcp.cli import mcp_commands
from hearth.connectors.mcp.connector import McpServerConnector
from hearth.connectors.mcp.server_log import ServerLog
from hearth.consent import Rule
from hearth.messages import CancelToken
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.mcp.kit import configure, late_server, silent_server, time_server
from tests.connectors.mcp.late_server import DOWN
from tests.connectors.mcp.test_server_stderr import HEARTH, in_a_process

pytestmark = pytest.mark.usefixtures("servers_allowed")
TOKYO = ("late.convert_time", {"source_timezone": "Europe/Paris", "time": "09:30",
                               "target_timezone": "Asia/Tokyo"})  # fmt: skip
# Only a bound on a wait for what must happen: a test that meets it has failed.
PATIENCE = 60.0


class Recording:
    """The real plugin's hook, each server's phases recorded as they change."""

    def __init__(self) -> None:
        self.connectors: dict[str, McpServerConnector] = {}
        self.phases: dict[str, list[str]] = {}
        self.changed = threading.Event()

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        plugin.register_connectors(lambda connector: self._keep(connector, register))

    def _keep(self, connector: Connector, register: Callable[[Connector], None]) -> None:
        assert isinstance(connector, McpServerConnector)
        self.connectors[connector.link.name] = connector
        self.phases[connector.link.name] = []
        connector.add_change_listener(self._heard)
        register(connector)

    def _heard(self, connector: Connector) -> None:
        assert isinstance(connector, McpServerConnector)
        phases = self.phases[connector.link.name]
        if not phases or phases[-1] != connector.upkeep.state.phase:
            phases.append(connector.upkeep.state.phase)
        self.changed.set()

    def wait_until(self, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + PATIENCE
        while not condition():
            assert time.monotonic() < deadline, f"still waiting; phases: {self.phases}"
            self.changed.wait(0.2)
            self.changed.clear()


@pytest.fixture
def recording() -> Iterator[Recording]:
    made = Recording()
    yield made
    for connector in made.connectors.values():
        connector.stop()


def pid_of(pid_file: Path) -> int:
    return int(pid_file.read_text(encoding="utf-8"))


def gone(pid: int) -> bool:
    """No such process, not even a zombie nobody reaped."""
    return not Path(f"/proc/{pid}").exists()


def until_file(path: Path) -> None:
    deadline = time.monotonic() + PATIENCE
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def test_registering_starts_no_server_and_hearth_help_starts_none(tmp_path: Path) -> None:
    pid_file = tmp_path / "silent.pid"
    configure(silent=silent_server(pid_file, connect_timeout=120))
    made: list[Connector] = []
    plugin.register_connectors(made.append)
    [silent] = made
    assert silent.status_line() == "not started" and silent.tools == ()
    helped = in_a_process(HEARTH, "--help")
    assert helped.returncode == 0 and "Commands" in helped.stdout
    assert not pid_file.exists()  # `hearth --help` never started it


def test_hearth_ask_ends_while_a_silent_server_still_has_not_answered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, recording: Recording
) -> None:
    pid_file = tmp_path / "silent.pid"
    configure(silent=silent_server(pid_file, connect_timeout=120))

    def load_model(*_: Any, **__: Any) -> ScriptedModel:
        until_file(pid_file)  # the server's process runs before the turn starts
        return ScriptedModel([Reply(text="Hello there.")])

    def opened(model: Any = None, **options: Any) -> Assistant:
        return Assistant.open(model, plugins=[recording], entry_points=False, **options)

    monkeypatch.setattr(chat, "load_model", load_model)
    monkeypatch.setattr(chat, "Assistant", SimpleNamespace(open=opened))
    done = CliRunner().invoke(ask_cmd.ask, ["Say hello."], catch_exceptions=False)
    assert done.exit_code == 0 and "Hello there." in done.output
    # It was still starting (its 120 s not spent) when `ask` ended and stopped it.
    assert recording.phases["silent"] == ["connecting", "stopped"]
    assert gone(pid_of(pid_file))
    assert "listening, and never answering" in ServerLog("silent").path.read_text()


def test_a_call_before_the_server_is_up_is_a_tool_failure_saying_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, recording: Recording
) -> None:
    marker = tmp_path / "marker"
    marker.touch()
    configure(late=late_server(marker))
    listed = CliRunner().invoke(mcp_commands(), ["list"], catch_exceptions=False)
    assert "ready, 2 tools: get_current_time, convert_time" in listed.output
    marker.unlink()  # down from now on; its tools are known from that listing

    def opened(model: Any = None, **options: Any) -> Assistant:
        core = Assistant.open(model, plugins=[recording], entry_points=False, **options)
        core.allow(Rule.create(TOKYO[0], "allow", now=time.time(), after_untrusted=True))
        return core

    model = ScriptedModel([Reply(calls=[TOKYO]), Reply(text="It is down.")])
    monkeypatch.setattr(chat, "load_model", lambda *_, **__: model)
    monkeypatch.setattr(chat, "Assistant", SimpleNamespace(open=opened))
    done = CliRunner().invoke(ask_cmd.ask, ["--json", "Use the late server."])
    assert done.exit_code == 0, done.output
    call, turn = [json.loads(line) for line in done.stdout.splitlines()]
    assert call["tool"] == TOKYO[0] and call["outcome"] == "failed"
    assert "the MCP server 'late' could not start" in call["result"]
    assert f"it said: {DOWN} marker" in call["result"]
    assert turn["answer"] == "It is down."


def test_a_server_down_at_start_comes_back_with_its_tools_in_an_open_conversation(
    tmp_path: Path, recording: Recording
) -> None:
    marker = tmp_path / "marker"
    configure(late=late_server(marker))
    model = ScriptedModel([Reply(calls=[TOKYO]), Reply(text="Done.")])
    core = Assistant.open(model, plugins=[recording], entry_points=False)
    try:
        session = core.session(config=AgentConfig(tool_budget=100_000))  # before it is up
        late = recording.connectors["late"]
        recording.wait_until(lambda: "not answering" in recording.phases["late"])
        assert f"it said: {DOWN} marker; retrying in " in (late.status_line() or "")
        assert not [tool for tool in core.tools if tool.name.startswith("late.")]
        marker.touch()
        recording.wait_until(lambda: core.tools.get(TOKYO[0]) is not None)
        assert late.status_line() == "ready, 2 tools"
        turn = session.run_turn("Use the late server.", CancelToken())
        steps = drive(turn, lambda _: AllowOnce())
        [ran] = of(steps, ToolRan)
        assert ran.outcome == "executed" and '"timezone": "Asia/Tokyo"' in ran.result
    finally:
        core.close()
    assert recording.phases["late"][-1] == "stopped"
    assert f"{DOWN} marker" in ServerLog("late").path.read_text()  # its stderr, in its log


def test_tools_a_server_brought_later_leave_with_its_plugin_and_come_back_known(
    tmp_path: Path, recording: Recording
) -> None:
    marker = tmp_path / "marker"
    configure(late=late_server(marker))
    core = Assistant.open(plugins=[recording], entry_points=False)
    try:
        recording.wait_until(lambda: "not answering" in recording.phases["late"])
        marker.touch()
        recording.wait_until(lambda: core.tools.get(TOKYO[0]) is not None)
        first = recording.connectors["late"]
        core.set_plugin_enabled("Recording", False)
        assert not [tool for tool in core.tools if tool.name.startswith("late.")]
        assert first.upkeep.state.phase == "stopped"
        info = core.set_plugin_enabled("Recording", True)
        # Offered at once, as it listed them last time; its fresh listing follows.
        assert info.tools == ("late.get_current_time", "late.convert_time")
        assert core.tools.get(TOKYO[0]) is not None
        assert recording.connectors["late"] is not first
    finally:
        core.close()


EXIT = """
import sys, threading, time
from pathlib import Path
from hearth.assistant import Assistant
from hearth.connectors.mcp import plugin
from hearth.connectors.mcp.cli import mcp_commands
pid_file = Path(sys.argv[1])
core = Assistant.open(plugins=[plugin], entry_points=False)
while not pid_file.exists() or core.tools.get("time.get_current_time") is None:
    time.sleep(0.05)
if sys.argv[2] == "close":
    core.close()
    pid = int(pid_file.read_text())
    print("zombie or alive" if Path(f"/proc/{pid}").exists() else "server gone")
    print("loop threads:", [t.name for t in threading.enumerate() if t.name == "hearth-mcp"])
"""


@pytest.mark.parametrize("ending", ["close", "exit"])
def test_nothing_outlives_hearth_and_its_exit_does_not_hang(tmp_path: Path, ending: str) -> None:
    """Closed, or left to the interpreter's exit: each server, starting (silent), down (late)
    or ready (time), ends and is reaped, and so does Hearth; a close that ran out of time would
    say so on stderr (and `in_a_process` fails after its 120 s bound)."""
    pid_file = tmp_path / "silent.pid"
    silent = silent_server(pid_file, connect_timeout=120)
    configure(silent=silent, late=late_server(tmp_path / "m"), time=time_server())
    done = in_a_process(EXIT, str(pid_file), ending)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    if ending == "close":
        assert done.stdout.splitlines() == ["server gone", "loop threads: []"]
    assert gone(pid_of(pid_file))
