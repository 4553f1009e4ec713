"""`hearth mcp` through the real command line, with servers in a tmp Hearth home."""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hearth.cli.main import cli
from hearth.connectors.mcp import config
from hearth.connectors.mcp.cli import SAFE_MODE_NOTE, mcp_commands
from tests.connectors.mcp.kit import SERVER_APP, calls, configure, stdio_server
from tests.connectors.mcp.server_app import SPOOF_ENV
from tests.fixtures.spoofing import A_FEW, assert_safe


@pytest.fixture(autouse=True)
def mcp_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # Until the package is reinstalled its metadata lacks the `mcp` entry point; add the
    # same group the plugin registers so `hearth mcp` resolves either way.
    if not entry_points(group="hearth.plugins", name="mcp"):
        monkeypatch.setitem(cli.commands, "mcp", mcp_commands())


def hearth(*arguments: str) -> Result:
    return CliRunner().invoke(cli, ["mcp", *arguments], catch_exceptions=False)


def test_add_list_tools_and_remove(servers_allowed: None, log: Path) -> None:
    added = hearth(
        "add", "notes", "--env", f"MCP_TEST_LOG={log}", "--", sys.executable, str(SERVER_APP)
    )
    assert added.exit_code == 0, added.output
    saved = config.load().servers["notes"]
    assert saved.args == [str(SERVER_APP)] and saved.env == {"MCP_TEST_LOG": str(log)}
    listed = hearth("list")
    assert listed.exit_code == 0, listed.output
    assert f"notes  [stdio] {sys.executable}" in listed.output
    assert "ready, 6 tools: echo, add, Read-Note, crash, slow, fail" in listed.output
    shown = hearth("tools", "notes")
    assert "Read-Note: Read the shared note" in shown.output
    assert "claims: read-only (not checked by Hearth)" in shown.output
    assert hearth("remove", "notes").exit_code == 0
    assert "No MCP servers" in hearth("list").output
    assert calls(log) == ["start", "start"]  # listed and shown; nothing called


def test_add_a_url_and_refuse_bad_input() -> None:
    assert hearth("add", "web", "--url", "https://mcp.example/mcp").exit_code == 0
    assert config.load().servers["web"].url == "https://mcp.example/mcp"
    slow = hearth("add", "slow", "--connect-timeout", "45", "--", "npx", "-y", "pkg")
    assert slow.exit_code == 0 and config.load().servers["slow"].start_timeout == 45
    assert json.loads(config.config_path().read_text())["mcpServers"]["slow"] == {
        "command": "npx",
        "args": ["-y", "pkg"],
        "connectTimeout": 45.0,
    }
    clash = hearth("add", "web", "--url", "https://other.example/mcp")
    assert clash.exit_code != 0 and "already configured: web" in clash.output
    neither = hearth("add", "x")
    assert neither.exit_code != 0 and "give a command" in neither.output
    bad_env = hearth("add", "x", "--env", "NOPE", "--", "prog")
    assert bad_env.exit_code != 0 and "KEY=VALUE" in bad_env.output
    assert hearth("remove", "ghost").exit_code != 0


def test_import_a_claude_desktop_file(tmp_path: Path) -> None:
    source = tmp_path / "claude.json"
    source.write_text(
        json.dumps({"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://h/"}}})
    )
    imported = hearth("import", str(source))
    assert imported.exit_code == 0 and "Imported 2 MCP servers: a, b." in imported.output
    again = hearth("import", str(source))
    assert again.exit_code != 0 and "--replace" in again.output
    assert hearth("import", str(source), "--replace").exit_code == 0


def test_a_broken_file_is_reported_by_list() -> None:
    config.config_path().write_text("{oops")
    listed = hearth("list")
    assert listed.exit_code != 0 and "not valid JSON (line 1, column 2" in listed.output


def test_safe_mode_lists_servers_but_starts_none(log: Path) -> None:
    configure(notes=stdio_server(log))
    listed = hearth("list")
    assert listed.exit_code == 0 and SAFE_MODE_NOTE in listed.output
    assert hearth("tools", "notes").exit_code != 0
    assert calls(log) == []


@pytest.mark.parametrize("spoof", A_FEW)
def test_imported_names_commands_and_a_servers_tools_are_shown_escaped(
    tmp_path: Path, log: Path, spoof: str
) -> None:
    source = tmp_path / "claude.json"
    server = {"command": sys.executable, "args": [str(SERVER_APP), spoof]}
    source.write_text(json.dumps({"mcpServers": {spoof: server}}))
    # color: click would strip a spoof's ESC sequences from what is not a terminal
    imported = CliRunner().invoke(cli, ["mcp", "import", str(source)], color=True)
    assert imported.exit_code == 0, imported.output
    listed = CliRunner().invoke(cli, ["mcp", "list"], color=True)  # safe mode: nothing starts
    assert listed.exit_code == 0 and SAFE_MODE_NOTE in listed.output
    missing = CliRunner().invoke(cli, ["mcp", "tools", f"{spoof}!"], color=True)
    assert missing.exit_code == 1
    for done in (imported, listed, missing):
        assert_safe(done.output, spoof, lines=True)


@pytest.mark.parametrize("spoof", A_FEW)
def test_a_servers_tool_names_and_descriptions_are_shown_escaped(
    servers_allowed: None, log: Path, spoof: str
) -> None:
    server = stdio_server(log)
    configure(notes=server.model_copy(update={"env": {**server.env, SPOOF_ENV: spoof}}))
    for arguments in (["list"], ["tools", "notes"]):
        done = CliRunner().invoke(cli, ["mcp", *arguments], color=True)
        assert done.exit_code == 0, done.output
        assert "spoof" in done.output
        assert_safe(done.output, spoof, lines=True)
