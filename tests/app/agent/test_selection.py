"""Tool selection over the built-in connectors' real tools."""

from __future__ import annotations

import pytest

from hearth.agent.selection import select_tools
from hearth.plugins.loading import load_plugins
from hearth.tools import Tool, ToolRegistry


@pytest.fixture(scope="module")
def tools() -> list[Tool]:
    registry = ToolRegistry()
    load_plugins(registry, user_files=False, disabled=())
    return [tool for tool in registry if not tool.name.startswith("mcp")]


def names(text: str, tools: list[Tool], limit: int = 6) -> list[str]:
    return [tool.name for tool in select_tools(text, tools, limit=limit)]


def test_a_change_tool_brings_a_way_to_find_what_it_changes(tools: list[Tool]) -> None:
    # Found by `hearth eval`: only mail.move fitted, so the model could not find the message.
    assert names("Archive the newsletter from Fjord Outdoor.", tools) == ["mail.move", "mail.list"]
    assert names("Flag the invoice from Telenor.", tools)[-1] == "mail.list"


def test_the_lookup_waits_for_room_and_never_pushes_a_fitting_tool_out(
    tools: list[Tool],
) -> None:
    full = names("Archive the newsletter from Fjord Outdoor.", tools, limit=1)
    assert full == ["mail.move"]
    assert names("What is on my calendar tomorrow?", tools)[0].startswith("calendar.")
    assert names("hi", tools) == []


def test_throwing_away_a_file_offers_the_trash(tools: list[Tool]) -> None:
    assert "files.trash" in names("Throw away the file old-wifi.txt", tools)
