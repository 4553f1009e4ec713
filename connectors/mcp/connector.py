"""One connector per configured MCP server: its tools under its own name, its status.

Making one starts nothing, so every `hearth` command can register them for free; `start()` (a
front end opened) starts the server in the background (`ServerUpkeep`). Until it answers, the
connector offers the tools it listed last time (`KnownTools`); its fresh listing replaces them
and `connector_did_change()` has them swapped into Hearth's registry, without a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from hearth import Connector, StatusItem, counted, shown
from hearth.connectors.mcp.config import McpConfig
from hearth.connectors.mcp.known_tools import KnownTools
from hearth.connectors.mcp.link import ServerLink
from hearth.connectors.mcp.names import connector_names, sanitized
from hearth.connectors.mcp.runtime import McpRuntime
from hearth.connectors.mcp.tools import SkippedTool, claims, hearth_tools
from hearth.connectors.mcp.upkeep import ServerUpkeep

if TYPE_CHECKING:
    from mcp_types import Tool as McpTool

# Beyond a server's start timeout, for its first try to end and say why.
_FIRST_TRY_MARGIN = 5.0


class McpServerConnector(Connector):
    """The tools of one MCP server: third-party code, so every call asks first."""

    def __init__(self, name: str, link: ServerLink) -> None:
        super().__init__(
            name=name,
            title=f"{link.name} (MCP)",
            description=(
                f"Tools of the MCP server '{link.name}' ({link.server.where()}). It is "
                "third-party code: every call asks first, whatever the server claims."
            ),
            keywords=("mcp", *(word for word in sanitized(link.name).split("_") if word)),
        )
        self.link = link
        self.known = KnownTools(link.name, link.server)
        self.upkeep = ServerUpkeep(link, self._found, self.connector_did_change)
        self.listed: tuple[McpTool, ...] = ()
        self.skipped: list[SkippedTool] = []
        self._offer(self.known.load())

    def status_line(self) -> str | None:
        # Shown here: a problem and a tool's name quote the server (its stderr, too).
        state = self.upkeep.state
        if state.phase != "ready":
            return shown(state.line())
        left_out = "".join(f"; {item.name} left out: {item.reason}" for item in self.skipped)
        return shown(f"ready, {counted(len(self.tools), 'tool')}{left_out}")

    def status_items(self) -> Sequence[StatusItem]:
        server = self.link.server
        items = [StatusItem("Transport", server.transport, server.where())]
        if server.transport == "stdio":
            log = str(self.link.log.path)
            items.append(StatusItem("Server log", log, "what the server writes to stderr"))
        skipped = self.skipped
        left_out = {item.name for item in skipped}
        items += [
            StatusItem(item.name, claims(item.annotations) or "no claims", "as the server says")
            for item in self.listed
            if item.name not in left_out
        ]
        items += [StatusItem(s.name, "left out", s.reason, available=False) for s in skipped]
        return items

    def start(self) -> None:
        self.upkeep.start()

    def stop(self) -> None:
        # One loop serves every server: stopping it closes all their sessions, once.
        self.link.runtime.stop()

    def wait_for_first_try(self, timeout: float | None = None) -> None:
        """Start the server if need be and wait until it answered or failed once (for a caller
        that uses this server at once: the evaluation, `hearth mcp`); bounded by `timeout`."""
        self.start()
        limit = timeout or self.link.server.start_timeout + _FIRST_TRY_MARGIN

        async def first_try() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.upkeep.first_try_done.wait(), limit)

        self.link.runtime.run(first_try(), limit + 1)

    def _found(self, listed: list[McpTool]) -> None:
        """A fresh listing (on the loop): offered from now on, and kept for the next start.
        The same listing again (a reconnect) changes nothing, so the registry is left alone."""
        if list(self.listed) == listed:
            return
        self.known.save(listed)
        self._offer(listed)

    def _offer(self, listed: list[McpTool]) -> None:
        tools, skipped = hearth_tools(self.name, self.link.name, listed, self.link.call)
        self.listed, self.skipped = tuple(listed), list(skipped)
        self.replace_tools(tools)


def server_connectors(
    config: McpConfig, runtime: McpRuntime, builtin: Collection[str]
) -> list[McpServerConnector]:
    """A connector for each configured server, started, returned once each answered or failed
    once: for callers that use the servers at once (the evaluation, `hearth mcp`)."""
    connectors = idle_connectors(config, runtime, builtin)
    for connector in connectors:
        connector.start()  # all at once, so the waits below overlap
    for connector in connectors:
        connector.wait_for_first_try()
    return connectors


def idle_connectors(
    config: McpConfig, runtime: McpRuntime, builtin: Collection[str]
) -> list[McpServerConnector]:
    """A connector for each configured server, named apart from `builtin` and each other; none
    is started (the plugin's: a front end starts them, and nothing waits)."""
    names = connector_names(config.servers, builtin)
    return [
        McpServerConnector(names[name], ServerLink(name, server, runtime))
        for name, server in config.servers.items()
    ]
