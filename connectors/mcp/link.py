"""One MCP server's long-lived client session, opened on first use and reopened after a failure.

The session runs in a task of its own on the runtime's loop, because anyio requires a
connection to be closed by the task that opened it; callers on other threads only send it
requests. A server that stops, or does not answer in time, costs the call that met it: that
call fails with a `ToolFailure`, the session is dropped, and the next call starts a fresh one.
A stdio server's stderr goes to its `ServerLog`, and its last words explain why it stopped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import mcp
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from mcp.types import Tool as McpTool

from hearth import ToolFailure
from hearth.connectors.mcp.config import ServerConfig
from hearth.connectors.mcp.runtime import McpRuntime
from hearth.connectors.mcp.server_log import ServerLog

CONNECT_TIMEOUT = 10.0
_LIST_PAGES = 50
# Beyond the server's own deadline, for the session to report it before the caller gives up.
_GRACE = 5.0
# MCP's JSON-RPC error codes (mcp_types): the server went away; a request ran out of time.
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001

_T = TypeVar("_T")
logger = logging.getLogger(__name__)


class ServerLink:
    """The connection to the MCP server `name`: list its tools, call one, close."""

    def __init__(self, name: str, server: ServerConfig, runtime: McpRuntime) -> None:
        self.name = name
        self.server = server
        self.runtime = runtime
        self.log = ServerLog(name)
        self._client: mcp.Client | None = None
        self._closing: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None
        self._opening: asyncio.Lock | None = None
        # Why the last attempt failed, until one succeeds; for the connector's status line.
        self.problem = ""
        runtime.on_stop(self._drop)

    def list_tools(self, timeout: float = CONNECT_TIMEOUT) -> list[McpTool]:
        """Every tool the server offers, connecting first if need be."""
        return self._run(self.fetch_tools(), timeout)

    def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call `tool` on the server; a `ToolFailure` says why when it did not answer."""
        deadline = self.server.call_timeout
        return self._run(self._call(tool, arguments, deadline), CONNECT_TIMEOUT + deadline)

    def open_soon(self) -> None:
        """Start connecting in the background (a front end opened); errors wait for a call."""
        self.runtime.submit(self._quietly(self._session()))

    def close(self) -> None:
        """Close the session and stop the server's process; safe to repeat."""
        if self.runtime.running:
            self.runtime.run(self._drop(), CONNECT_TIMEOUT)

    def _run(self, work: Awaitable[_T], timeout: float) -> _T:
        async def bounded() -> _T:
            return await work

        try:
            return self.runtime.run(bounded(), timeout + _GRACE)
        except TimeoutError:
            self.runtime.submit(self._drop())
            self.problem = self._late(timeout)
            raise ToolFailure(self.problem) from None

    async def fetch_tools(self) -> list[McpTool]:
        """Every tool the server offers, on the runtime's loop; raises `ToolFailure`."""
        client = await self._session()
        found: list[McpTool] = []
        cursor: str | None = None
        for _ in range(_LIST_PAGES):
            page = await self._guarded(client.list_tools(cursor=cursor), CONNECT_TIMEOUT)
            found.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return found

    async def _call(self, tool: str, arguments: dict[str, Any], deadline: float) -> CallToolResult:
        client = await self._session()
        return await self._guarded(
            client.call_tool(tool, arguments, read_timeout_seconds=deadline), deadline
        )

    async def _guarded(self, request: Awaitable[_T], deadline: float) -> _T:
        """`request`'s answer; any failure drops the session and becomes a `ToolFailure`."""
        try:
            return await self._answer(request, deadline)
        except ToolFailure as failure:
            if self._client is None:
                self.problem = str(failure)
            raise

    async def _answer(self, request: Awaitable[_T], deadline: float) -> _T:
        try:
            return await asyncio.wait_for(request, deadline + _GRACE)
        except MCPError as error:
            if error.code not in (_CONNECTION_CLOSED, _REQUEST_TIMEOUT):
                refused = f"the MCP server {self.name!r} refused: {error.message}"
                raise ToolFailure(refused) from None
            await self._drop_soon()
            if error.code == _REQUEST_TIMEOUT:
                raise ToolFailure(self._late(deadline)) from None
            raise ToolFailure(self._stopped(error.message)) from None
        except TimeoutError:
            await self._drop_soon()
            raise ToolFailure(self._late(deadline)) from None
        except Exception as error:
            await self._drop_soon()
            raise ToolFailure(self._stopped(_reason(error))) from None

    async def _session(self) -> mcp.Client:
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._client is None or self._holder is None or self._holder.done():
                await self._drop()
                self._client = await self._open()
                self.problem = ""
            return self._client

    async def _open(self) -> mcp.Client:
        ready: asyncio.Future[mcp.Client] = asyncio.get_running_loop().create_future()
        closing = asyncio.Event()
        holder = asyncio.create_task(self._hold(ready, closing), name=f"mcp {self.name}")
        self._closing, self._holder = closing, holder
        try:
            return await asyncio.wait_for(asyncio.shield(ready), CONNECT_TIMEOUT)
        except TimeoutError:
            late = f"did not start within {CONNECT_TIMEOUT:g} s"
            self.problem = f"the MCP server {self.name!r} {late}"
        except Exception as error:
            failed = f"the MCP server {self.name!r} could not start: {_reason(error)}"
            self.problem = self._explained(failed)
        await self._drop()
        raise ToolFailure(self.problem)

    async def _hold(self, ready: asyncio.Future[mcp.Client], closing: asyncio.Event) -> None:
        try:
            async with self._started() as client:
                ready.set_result(client)
                await closing.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError())
            if not isinstance(error, Exception):
                raise
            logger.info("MCP server %r closed: %s", self.name, _reason(error))

    @asynccontextmanager
    async def _started(self) -> AsyncIterator[mcp.Client]:
        """A session with the server; a stdio server's stderr goes to its log meanwhile."""
        if self.server.url is not None:
            async with mcp.Client(self.server.url) as client:
                yield client
            return
        command = mcp.StdioServerParameters(
            command=self.server.command or "", args=self.server.args, env=self.server.env or None
        )
        # Not inherited: what the server says would land amid Hearth's own output.
        with self.log.open() as errlog:
            async with mcp.Client(stdio_client(command, errlog=errlog)) as client:
                yield client

    async def _drop_soon(self) -> None:
        """Drop the session without making the failing call wait for the server to exit."""
        holder, self._client = self._holder, None
        if holder is not None and self._closing is not None:
            self._closing.set()

    async def _drop(self) -> None:
        holder, closing = self._holder, self._closing
        self._client = self._holder = self._closing = None
        if holder is None or closing is None:
            return
        closing.set()
        try:
            await asyncio.wait_for(holder, CONNECT_TIMEOUT)
        except (TimeoutError, Exception):
            holder.cancel()

    async def _quietly(self, work: Awaitable[object]) -> None:
        try:
            await work
        except Exception as error:
            logger.info("MCP server %r: %s", self.name, _reason(error))

    def _stopped(self, reason: str) -> str:
        return self._explained(f"the MCP server {self.name!r} stopped: {reason}")

    def _explained(self, problem: str) -> str:
        return self.log.explained(problem)

    def _late(self, seconds: float) -> str:
        return f"the MCP server {self.name!r} did not answer within {seconds:g} s"


def _reason(error: BaseException) -> str:
    # anyio and the task group wrap the cause: name the innermost one.
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return str(error) or type(error).__name__
