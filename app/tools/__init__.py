"""Tools: typed, documented functions the model may propose, and the registry that holds them."""

from hearth.tools.decorator import ToolMethod, tool
from hearth.tools.define import make_tool
from hearth.tools.errors import (
    ArgumentProblem,
    ArgumentRefused,
    ToolArgumentsError,
    ToolDefinitionError,
)
from hearth.tools.provenance import Provenance
from hearth.tools.registry import DuplicateToolError, ToolRegistry
from hearth.tools.result import Summarized, ToolResult, list_summary, summary_of
from hearth.tools.tool import Effect, Scope, ScopeKind, Tool

__all__ = [
    "ArgumentProblem",
    "ArgumentRefused",
    "DuplicateToolError",
    "Effect",
    "Provenance",
    "Scope",
    "ScopeKind",
    "Summarized",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolMethod",
    "ToolRegistry",
    "ToolResult",
    "list_summary",
    "make_tool",
    "summary_of",
    "tool",
]
