"""One connector per configured MCP server: its tools under its own name, its status."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from mcp.types import Tool as McpTool

from hearth import Connector, StatusItem, ToolFailure, counted, shown
from hearth.connectors.mcp.config import McpConfig, ServerConfig
from hearth.connectors.mcp.link import CONNECT_TIMEOUT, ServerLink
from hearth.connectors.mcp.names import connector_names, sanitized
from hearth.connectors.mcp.runtime import McpRuntime
from hearth.connectors.mcp.tools import claims, hearth_tools

_DISCOVERY_MARGIN = 5.0


@dataclass(frozen=True)
class Discovery:
    """What connecting to one server found: its tools, or why there are none."""

    link: ServerLink
    listed: tuple[McpTool, ...] = ()
    problem: str = ""


class McpServerConnector(Connector):
    """The tools of one MCP server: third-party code, so every call asks first."""

    def __init__(self, name: str, found: Discovery) -> None:
        link = found.link
        tools, skipped = hearth_tools(name, link.name, list(found.listed), link.call)
        super().__init__(
            name=name,
            title=f"{link.name} (MCP)",
            description=(
                f"Tools of the MCP server '{link.name}' ({link.server.where()}). It is "
                "third-party code: every call asks first, whatever the server claims."
            ),
            tools=tools,
            keywords=("mcp", *(word for word in sanitized(link.name).split("_") if word)),
        )
        self.link = link
        self.listed = found.listed
        self.skipped = skipped
        self._problem = found.problem

    def status_line(self) -> str | None:
        # Shown here: a problem and a tool's name quote the server (its stderr, too).
        problem = self.link.problem or self._problem
        if problem:
            return shown(f"not connected: {problem}")
        left_out = "".join(f"; {item.name} left out: {item.reason}" for item in self.skipped)
        return shown(f"connected, {counted(len(self.tools), 'tool')}{left_out}")

    def status_items(self) -> Sequence[StatusItem]:
        server = self.link.server
        items = [StatusItem("Transport", server.transport, server.where())]
        if server.transport == "stdio":
            log = str(self.link.log.path)
            items.append(StatusItem("Server log", log, "what the server writes to stderr"))
        left_out = {skipped.name for skipped in self.skipped}
        items += [
            StatusItem(item.name, claims(item.annotations) or "no claims", "as the server says")
            for item in self.listed
            if item.name not in left_out
        ]
        items += [StatusItem(s.name, "left out", s.reason, available=False) for s in self.skipped]
        return items

    def start(self) -> None:
        self.link.open_soon()

    def stop(self) -> None:
        # One loop serves every server: stopping it closes all their sessions, once.
        self.link.runtime.stop()


def discover(servers: dict[str, ServerConfig], runtime: McpRuntime) -> dict[str, Discovery]:
    """Connect to every server at once and list its tools, each within the connect timeout."""
    links = [ServerLink(name, server, runtime) for name, server in servers.items()]
    if not links:
        return {}

    async def one(link: ServerLink) -> Discovery:
        try:
            listed = await asyncio.wait_for(link.fetch_tools(), CONNECT_TIMEOUT + 2)
        except ToolFailure as failure:
            return Discovery(link, problem=str(failure))
        except TimeoutError:
            late = f"the MCP server {link.name!r} did not answer within {CONNECT_TIMEOUT:g} s"
            return Discovery(link, problem=late)
        return Discovery(link, tuple(listed))

    async def every() -> list[Discovery]:
        return list(await asyncio.gather(*(one(link) for link in links)))

    found = runtime.run(every(), CONNECT_TIMEOUT + _DISCOVERY_MARGIN)
    return {item.link.name: item for item in found}


def server_connectors(
    config: McpConfig, runtime: McpRuntime, builtin: Collection[str]
) -> list[McpServerConnector]:
    """A connector for each configured server, named apart from `builtin` and each other."""
    names = connector_names(config.servers, builtin)
    found = discover(config.servers, runtime)
    return [McpServerConnector(names[server], found[server]) for server in config.servers]
