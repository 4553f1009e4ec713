"""Every tool Hearth can offer the model, by name."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from hearth.tools.errors import ToolDefinitionError
from hearth.tools.tool import Tool


class DuplicateToolError(ToolDefinitionError):
    """Two tools claim the same name."""


class ToolRegistry:
    """Registered tools in registration order; names are unique.

    Plugins come and go while calls run on other threads, so every change happens under a lock
    and `replace` swaps one plugin's tools for another's in a single step.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register a tool; a second tool with the same name is refused."""
        self.replace((), (tool,))

    def remove(self, name: str) -> Tool | None:
        """Forget the tool called `name`; returns it, or None when there was none."""
        with self._lock:
            # A new dict, never changed in place: readers iterate the one they got, unlocked.
            kept = dict(self._tools)
            tool = kept.pop(name, None)
            self._tools = kept
            return tool

    def replace(self, removed: Iterable[str], added: Iterable[Tool]) -> None:
        """Drop the tools named in `removed` and register `added`, all at once: when a name in
        `added` is taken (by a tool that stays, or twice in `added`), nothing changes."""
        added = tuple(added)
        with self._lock:
            kept = dict(self._tools)
            for name in removed:
                kept.pop(name, None)
            for tool in added:
                existing = kept.get(tool.name)
                if existing is not None:
                    owner = f" by connector {existing.connector!r}" if existing.connector else ""
                    raise DuplicateToolError(
                        f"a tool named {tool.name!r} is already registered{owner}"
                    )
                kept[tool.name] = tool
            self._tools = kept

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
