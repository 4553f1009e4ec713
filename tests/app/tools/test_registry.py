"""The registry holds each tool once, by name, and hands out specs to offer the model."""

from __future__ import annotations

import dataclasses

import pytest

from hearth.tools import DuplicateToolError, Tool, ToolRegistry, make_tool


def read_file(path: str) -> str:
    """Read a text file.

    Args:
        path: The file.
    """
    return path


def list_mail(folder: str = "INBOX") -> list[str]:
    """List messages in a mail folder.

    Args:
        folder: The folder.
    """
    return [folder]


@pytest.fixture
def tools() -> list[Tool]:
    mail = make_tool(list_mail, effect="read", name="mail.list")
    return [
        make_tool(read_file, effect="read", name="files.read"),
        dataclasses.replace(mail, connector="mail"),
    ]


def test_registry_holds_tools_by_name_in_order(tools: list[Tool]) -> None:
    registry = ToolRegistry(tools)
    assert len(registry) == 2
    assert [tool.name for tool in registry] == ["files.read", "mail.list"]
    assert registry.get("files.read") is tools[0]
    assert registry.get("nope") is None
    assert "mail.list" in registry


def test_a_second_tool_with_the_same_name_is_refused(tools: list[Tool]) -> None:
    registry = ToolRegistry(tools)
    with pytest.raises(
        DuplicateToolError, match=r"'mail\.list' is already registered by connector"
    ):
        registry.add(dataclasses.replace(tools[1], connector=None))
    assert registry.get("mail.list") is tools[1]


def test_tools_by_connector(tools: list[Tool]) -> None:
    registry = ToolRegistry(tools)
    assert registry.by_connector("mail") == [tools[1]]
    assert registry.by_connector(None) == [tools[0]]
    assert registry.by_connector("calendar") == []
