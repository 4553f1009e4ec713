"""The offered tools in words: which connectors the model could use this turn, and which not.

Both front ends show the same line (the desktop in the reply's Thoughts, the terminal dimmed),
so a user who wonders why Hearth "can't see my mail" can read why. Connector names and titles
come from plugins and MCP servers: each one is written through `shown`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hearth.agent.steps import ToolsOffered
from hearth.display import shown
from hearth.plugins.connector import Connector

NO_TOOLS = "No tools offered for this request"
LEFT_OUT = "left out to keep the prompt small: "
ADDED = "Added after a tool's reply: "


def connector_titles(connectors: Iterable[Connector]) -> dict[str, str]:
    """Each connector's title by its name ("mail" -> "Mail"), for those that have one."""
    return {connector.name: connector.title for connector in connectors if connector.title}


def offered_line(step: ToolsOffered, titles: Mapping[str, str] | None = None) -> str:
    """One line: "Tools offered: Calendar, Mail; left out to keep the prompt small: Files".

    A connector is named by its title when `titles` has one, else by its name; with `added`,
    the line ends "Added after a tool's reply: System".
    """
    titles = titles or {}

    def names(connectors: Iterable[str]) -> str:
        return ", ".join(shown(titles.get(name) or name) for name in connectors)

    line = f"Tools offered: {names(step.connectors)}" if step.connectors else NO_TOOLS
    if step.left_out:
        line += f"; {LEFT_OUT}{names(step.left_out)}"
    elif not step.connectors:
        line += "."
    if step.added:
        line += f". {ADDED}{names(step.added)}"
    return line
