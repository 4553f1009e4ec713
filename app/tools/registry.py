"""Every tool Hearth can offer the model, by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hearth.tools.tool import Tool, ToolDefinitionError


class DuplicateToolError(ToolDefinitionError):
    """Two tools claim the same name."""


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

    def by_connector(self, name: str | None) -> list[Tool]:
        """Tools a connector registered; None gives the tools that belong to no connector."""
        return [tool for tool in self._tools.values() if tool.connector == name]
