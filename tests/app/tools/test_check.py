"""`check=`: a tool's cheap test that a call can run, declared like `undo`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from hearth import ToolFailure
from hearth.tools import ToolDefinitionError, tool


class Notes:
    name = "notes"

    @tool(effect="write", check="check_title")
    def add(self, title: str) -> str:
        """Save a note.

        Args:
            title: A short title.
        """
        return title

    def check_title(self, arguments: Mapping[str, Any]) -> None:
        if not arguments["title"].strip():
            raise ToolFailure("a note needs a title")


def test_a_method_names_its_check_and_the_tool_runs_it() -> None:
    added = Notes().add
    assert added.check is not None
    added.check({"title": "milk"})
    with pytest.raises(ToolFailure, match="needs a title"):
        added.check({"title": " "})


def test_only_a_connector_method_can_name_its_check() -> None:
    with pytest.raises(ToolDefinitionError, match="check names a method"):

        @tool(effect="write", check="nope")
        def add(title: str) -> str:
            """Save a note.

            Args:
                title: A short title.
            """
            return title
