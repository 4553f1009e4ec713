"""Arguments that do not fit a tool come with plain words per argument, for the person asked to
correct them; the validator's own message stays the model's."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from hearth.tools import ArgumentProblem, Tool, ToolArgumentsError, tool


def problems_of(item: Tool, arguments: dict[str, Any]) -> tuple[ArgumentProblem, ...]:
    with pytest.raises(ToolArgumentsError) as refused:
        item.validate(arguments)
    assert str(refused.value).startswith(f"Invalid arguments for {item.name}: ")
    return refused.value.problems


def test_a_typed_tool_s_problems_are_said_per_argument_quoting_the_value() -> None:
    @tool(effect="system")
    def volume_set(
        level: Annotated[int, Field(ge=0, le=100)], mode: Literal["quiet", "loud"], to: list[str]
    ) -> str:
        """Set the volume.

        Args:
            level: 0 to 100.
            mode: How.
            to: Where.
        """
        return "ok"

    found = problems_of(volume_set, {"level": 900, "mode": "wild", "to": [3], "extra": 1})
    assert found == (
        ArgumentProblem("level", "900 is too high: level must be at most 100"),
        ArgumentProblem("mode", "'wild' is not one of the choices for mode: 'quiet' or 'loud'"),
        ArgumentProblem("to", "item 1 of to must be text, not 3"),
        ArgumentProblem("extra", "volume_set takes no argument called 'extra'"),
    )
    (missing,) = problems_of(volume_set, {"mode": "quiet", "to": []})
    assert missing == ArgumentProblem("level", "level is missing; volume_set needs it")


def test_a_schema_tool_s_problems_are_said_in_the_same_words() -> None:
    def call(**arguments: Any) -> dict[str, Any]:
        return arguments

    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1},
            "units": {"enum": ["metric", "imperial"]},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    weather = Tool("weather", "Weather for a city.", schema, call, "read")
    found = problems_of(weather, {"days": 0, "units": "kelvin", "wind": True})
    assert set(found) == {
        ArgumentProblem("city", "city is missing; weather needs it"),
        ArgumentProblem("wind", "weather takes no argument called 'wind'"),
        ArgumentProblem("days", "0 is too low: days must be at least 1"),
        ArgumentProblem(
            "units", "'kelvin' is not one of the choices for units: 'metric', 'imperial'"
        ),
    }
    (typed,) = problems_of(weather, {"city": 7})
    assert typed == ArgumentProblem("city", "city must be text, not 7")
