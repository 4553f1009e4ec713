"""Every tool Hearth can offer the model, by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hearth.engine.types import ToolSpec
from hearth.errors import HearthError
from hearth.tools.tool import Tool, ToolDefinitionError


class DuplicateToolError(ToolDefinitionError):
    """Two tools claim the same name."""


class UnknownToolError(HearthError):
    """A tool was asked for by a name nobody registered."""


class ToolRegistry:
    """Registered tools in registration order; names are unique."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register a tool; a second tool with the same name is refused."""
        existing = self._tools.get(tool.name)
        if existing is not None:
            owner = f" by connector {existing.connector!r}" if existing.connector else ""
            raise DuplicateToolError(f"a tool named {tool.name!r} is already registered{owner}")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        """Specs to offer the model: the named tools in the given order, or all of them."""
        if names is None:
            return [tool.spec() for tool in self._tools.values()]
        wanted = list(names)
        unknown = [name for name in wanted if name not in self._tools]
        if unknown:
            raise UnknownToolError(f"no tool named {', '.join(map(repr, unknown))}")
        return [self._tools[name].spec() for name in wanted]

    def by_connector(self, name: str | None) -> list[Tool]:
        """Tools a connector registered; None gives the tools that belong to no connector."""
        return [tool for tool in self._tools.values() if tool.connector == name]
