"""Arguments are validated against the signature before a call, in words a small model can use."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import pydantic
import pytest

from hearth.tools import Tool, ToolArgumentsError, make_tool, tool


def set_volume(
    level: Annotated[int, pydantic.Field(ge=0, le=100)], device: str = "speakers"
) -> str:
    """Set the speaker volume.

    Args:
        level: Volume in percent.
        device: Which output.
    """
    return f"{device}={level}"


def move(src: Path, dst: Path, json: bool = False) -> tuple[Path, Path, bool]:
    """Move a file.

    Args:
        src: The file to move.
        dst: Where it goes.
        json: A parameter whose name shadows a pydantic method.
    """
    return src, dst, json


@pytest.fixture(scope="module")
def volume() -> Tool:
    return make_tool(set_volume, effect="system", scope="device", scope_kind="setting")


def test_validate_fills_defaults(volume: Tool) -> None:
    assert volume.validate({"level": 30}) == {"level": 30, "device": "speakers"}


def test_validate_converts_to_the_signature_types() -> None:
    files = make_tool(move, effect="write", name="files.move")
    assert files.validate({"src": "/a", "dst": "/b", "json": True}) == {
        "src": Path("/a"),
        "dst": Path("/b"),
        "json": True,
    }
    assert files.invoke({"src": "/a", "dst": "/b"}) == (Path("/a"), Path("/b"), False)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"level": 200}, "level: Input should be less than or equal to 100"),
        ({"level": 50, "volume": 3}, "volume: Extra inputs are not permitted"),
        ({}, "level: Field required"),
        ({"level": "loud"}, "level: Input should be a valid integer"),
        (["level", 5], "arguments must be a JSON object"),
    ],
)
def test_invalid_arguments_say_what_to_fix(volume: Tool, arguments: Any, message: str) -> None:
    with pytest.raises(ToolArgumentsError, match=message):
        volume.validate(arguments)


def test_invalid_arguments_never_reach_the_function(volume: Tool) -> None:
    with pytest.raises(ToolArgumentsError, match="set_volume"):
        volume.invoke({"level": -1})
    assert volume.invoke({"level": 7, "device": "headset"}) == "headset=7"


def test_validation_model_is_built_once_per_tool(volume: Tool) -> None:
    assert volume.arguments_model is volume.arguments_model
    assert volume.arguments_model is not None


def test_describe_defaults_to_a_call_line() -> None:
    files = make_tool(move, effect="write", name="files.move")
    assert files.describe({"src": "a", "dst": "b"}) == 'files.move(src="a", dst="b")'
    long = files.describe({"src": "x" * 500, "dst": Path("/b")})
    assert len(long) < 130 and long.endswith('…, dst="/b")')


def test_describe_uses_the_tools_preview() -> None:
    def render(arguments: Mapping[str, Any]) -> str:
        return f"Move {arguments['src']} to {arguments['dst']}"

    @tool(effect="write", preview=render)
    def rename(src: str, dst: str) -> None:
        """Rename a file.

        Args:
            src: Old name.
            dst: New name.
        """

    assert rename.describe({"src": "a", "dst": "b"}) == "Move a to b"


def test_a_tool_without_a_signature_is_checked_against_its_schema() -> None:
    # MCP tools arrive as a JSON schema plus a call taking keyword arguments.
    def call(**arguments: Any) -> dict[str, Any]:
        return arguments

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    weather = Tool("weather", "Weather for a city.", schema, call, "read")
    assert weather.invoke({"city": "Oslo"}) == {"city": "Oslo"}
    with pytest.raises(ToolArgumentsError, match="arguments: 'city' is a required property"):
        weather.validate({})
    with pytest.raises(ToolArgumentsError, match="Additional properties"):
        weather.validate({"city": "Oslo", "days": 3})
