"""Tools: typed, documented functions the model may propose, and the registry that holds them."""

from hearth.tools.define import make_tool, tool
from hearth.tools.registry import DuplicateToolError, ToolRegistry, UnknownToolError
from hearth.tools.tool import (
    Effect,
    ScopeKind,
    Tool,
    ToolArgumentsError,
    ToolDefinitionError,
)

__all__ = [
    "DuplicateToolError",
    "Effect",
    "ScopeKind",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolRegistry",
    "UnknownToolError",
    "make_tool",
    "tool",
]
