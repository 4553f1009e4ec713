"""`mcp.json`: the Claude Desktop format read and written losslessly, clear errors, names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hearth.connectors.mcp import config
from hearth.connectors.mcp.config import McpConfigError
from hearth.connectors.mcp.names import connector_names, sanitized

CLAUDE_DESKTOP = {
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ann/Desktop"],
            "env": {"DEBUG": "1"},
            "disabled": False,
        },
        "Weather API": {"url": "https://weather.example/mcp", "timeout": 5},
    },
}


def test_a_claude_desktop_file_merges_in_and_nothing_is_lost(tmp_path: Path) -> None:
    config.save(config.McpConfig.model_validate({"mcpServers": {}, "note": "mine"}))
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps(CLAUDE_DESKTOP))
    assert config.import_file(source) == ["filesystem", "Weather API"]
    saved = json.loads(config.config_path().read_text())
    assert saved["note"] == "mine"
    assert saved["mcpServers"] == CLAUDE_DESKTOP["mcpServers"]
    loaded = config.load().servers
    assert loaded["Weather API"].transport == "http" and loaded["Weather API"].call_timeout == 5
    assert loaded["filesystem"].where().startswith("npx -y @modelcontextprotocol")


def test_an_import_refuses_a_name_clash_unless_replacing(tmp_path: Path) -> None:
    source = tmp_path / "claude.json"
    source.write_text(json.dumps(CLAUDE_DESKTOP))
    config.add_server("filesystem", config.ServerConfig(command="mine"))
    with pytest.raises(McpConfigError, match=r"already configured: filesystem.*--replace"):
        config.import_file(source)
    assert list(config.load().servers) == ["filesystem"]
    config.import_file(source, replace=True)
    assert config.load().servers["filesystem"].command == "npx"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"mcpServers": {', r"not valid JSON \(line 1, column 17"),
        ("[1]", "expected a JSON object"),
        ('{"mcpServers": {"x": {}}}', "server 'x': give either \"command\""),
        ('{"mcpServers": {"x": {"url": "file:///etc"}}}', "server 'x', url: String should"),
        ('{"mcpServers": {"x": {"command": "a", "args": "-v"}}}', "server 'x', args"),
        ('{"mcpServers": {"x": {"command": "a", "connectTimeout": 0}}}', "x', connectTimeout"),
    ],
)
def test_a_bad_file_gives_a_clear_error_and_is_kept(text: str, message: str) -> None:
    path = config.config_path()
    path.write_text(text)
    with pytest.raises(McpConfigError, match=message) as raised:
        config.load()
    assert str(path) in str(raised.value)
    with pytest.raises(McpConfigError):
        config.add_server("y", config.ServerConfig(command="b"))
    assert path.read_text() == text


def test_names_are_sanitized_kept_apart_from_builtins_and_unique() -> None:
    assert sanitized("Read-Note") == "read_note"
    assert sanitized("2fa codes!") == "mcp_2fa_codes"
    names = connector_names(["Mail", "Weather API", "weather-api", "ünï"], {"mail", "files"})
    assert names == {
        "Mail": "mcp_mail",
        "Weather API": "weather_api",
        "weather-api": "weather_api_2",
        "ünï": "n",
    }
