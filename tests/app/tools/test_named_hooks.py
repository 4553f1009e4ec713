"""A hook a `@tool` method names (`undo="move_back"`) is checked as the connector class is made."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from hearth import Connector, tool
from hearth.tools import ToolDefinitionError

HOOKS = ["undo", "check", "notifies", "preview", "slots"]


@pytest.mark.parametrize("hook", HOOKS)
def test_a_misspelt_hook_fails_as_the_class_is_made_naming_tool_and_hook(hook: str) -> None:
    with pytest.raises(ToolDefinitionError) as raised:

        class Shelf(Connector):
            name = "shelf"

            @tool(effect="write", **{hook: "put_bakc"})
            def take(self) -> str:
                """Take a book."""
                return "taken"

            def put_back(self, arguments: Mapping[str, Any], result: str) -> None: ...

    assert str(raised.value) == f"tool 'shelf.take': {hook} names no method 'put_bakc' of Shelf"


def test_a_hook_taking_other_arguments_fails_as_the_class_is_made() -> None:
    with pytest.raises(ToolDefinitionError) as raised:

        class Shelf(Connector):
            name = "shelf"

            @tool(effect="write", undo="put_back", name="shelf.take_book")
            def take(self) -> str:
                """Take a book."""
                return "taken"

            def put_back(self, arguments: Mapping[str, Any]) -> None: ...

    assert str(raised.value) == (
        "tool 'shelf.take_book': undo method 'put_back' must take (self, arguments, result)"
    )


def test_a_hook_may_live_in_another_base_of_the_connector() -> None:
    class Checks:
        def check_title(self, arguments: Mapping[str, Any], *, strict: bool = False) -> None:
            if not arguments["title"]:
                raise ValueError("no title")

    class Tools:
        @tool(effect="write", check="check_title")
        def add(self, title: str) -> str:
            """Save a note.

            Args:
                title: A short title.
            """
            return title

    class Notes(Tools, Checks, Connector):
        name = "notes"

    [added] = Notes().tools
    assert added.check is not None
    with pytest.raises(ValueError, match="no title"):
        added.check({"title": ""})


def test_a_mixin_s_misspelt_hook_fails_when_a_connector_takes_it_in() -> None:
    class Tools:
        @tool(effect="write", preview="preveiw_add")
        def add(self, title: str) -> str:
            """Save a note.

            Args:
                title: A short title.
            """
            return title

    with pytest.raises(ToolDefinitionError, match=r"'notes\.add': preview names no method"):

        class Notes(Tools, Connector):
            name = "notes"
