"""Tools: typed, documented functions the model may propose, and the registry that holds them."""

from hearth.tools.decorator import ToolMethod, tool
from hearth.tools.define import make_tool
from hearth.tools.registry import DuplicateToolError, ToolRegistry
from hearth.tools.result import ToolResult
from hearth.tools.tool import (
    Effect,
    Scope,
    ScopeKind,
    Tool,
    ToolArgumentsError,
    ToolDefinitionError,
)

__all__ = [
    "DuplicateToolError",
    "Effect",
    "Scope",
    "ScopeKind",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolMethod",
    "ToolRegistry",
    "ToolResult",
    "make_tool",
    "tool",
]
