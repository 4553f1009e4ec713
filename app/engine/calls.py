"""Turn a parsed (name, arguments) pair into a `ToolCall` only if it fits an offered tool."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema

from hearth.errors import EngineError
from hearth.messages import ToolCall, ToolSpec


class MalformedCallError(EngineError):
    """The model's tool call does not parse or does not match an offered tool."""


def check_call(name: str, arguments: Any, tools: Sequence[ToolSpec]) -> ToolCall:
    """Validate a proposed call against the offered tools' schemas."""
    by_name = {tool.name: tool for tool in tools}
    tool = by_name.get(name)
    if tool is None:
        offered = ", ".join(sorted(by_name)) or "none"
        raise MalformedCallError(f"unknown tool {name!r} (offered: {offered})")
    if not isinstance(arguments, Mapping):
        raise MalformedCallError(f"arguments of {name!r} must be an object")
    validator = jsonschema.Draft202012Validator(dict(tool.parameters))
    error = jsonschema.exceptions.best_match(validator.iter_errors(dict(arguments)))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "arguments"
        raise MalformedCallError(f"invalid arguments for {name!r} at {where}: {error.message}")
    return ToolCall(name=name, arguments=dict(arguments))
