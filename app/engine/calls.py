"""Turn a parsed (name, arguments) pair into a `ToolCall` only if it names an offered tool.

The arguments are not checked against the tool's schema here: the tool is their one owner, and
a value it cannot use becomes a card the user can fix (hearth.agent.fixing), not a notice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.errors import EngineError
from hearth.messages import ToolCall, ToolSpec


class MalformedCallError(EngineError):
    """The model's tool call does not parse or does not match an offered tool."""


def check_call(name: str, arguments: Any, tools: Sequence[ToolSpec]) -> ToolCall:
    """The call, if `name` is an offered tool and `arguments` is an object."""
    offered = {tool.name for tool in tools}
    if name not in offered:
        offered_words = ", ".join(sorted(offered)) or "none"
        raise MalformedCallError(f"unknown tool {name!r} (offered: {offered_words})")
    if not isinstance(arguments, Mapping):
        raise MalformedCallError(f"arguments of {name!r} must be an object")
    return ToolCall(name=name, arguments=dict(arguments))
