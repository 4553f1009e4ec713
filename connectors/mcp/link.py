"""One MCP server's long-lived client session, opened on first use and reopened after a failure.

The session runs in a task of its own on the runtime's loop, because anyio requires a
connection to be closed by the task that opened it; callers on other threads only send it
requests. A server that stops, or does not answer in time, costs the call that met it: that
call fails with a `ToolFailure`, the session is dropped, and the next call starts a fresh one.
A call that arrives while the server is being started waits for that start, not a second one.
A stdio server's stderr goes to its `ServerLog`, and its last words explain why it stopped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from hearth import ToolFailure
from hearth.connectors.mcp.config import ServerConfig
from hearth.connectors.mcp.runtime import McpRuntime
from hearth.connectors.mcp.server_log import ServerLog

if TYPE_CHECKING:
    import mcp
    from mcp.types import CallToolResult
    from mcp.types import Tool as McpTool

_LIST_PAGES = 50
# Beyond the server's own deadline, for the session to report it before the caller gives up.
_GRACE = 5.0
# How long closing may take: the SDK closes stdin, waits 2 s, then terminates and kills.
_CLOSE_TIMEOUT = 10.0
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
        self._ready: asyncio.Future[mcp.Client] | None = None
        self._opening: asyncio.Lock | None = None
        self._closed = False
        # Why the last attempt failed, until one succeeds; for the connector's status line.
        self.problem = ""
        # Called on the loop whenever a session opens or is dropped.
        self.session_did_change: Callable[[], None] = lambda: None
        runtime.on_stop(self.shut)

    @property
    def connected(self) -> bool:
        return self._client is not None

    def list_tools(self, timeout: float | None = None) -> list[McpTool]:
        """Every tool the server offers, connecting first if need be."""
        return self._run(self.fetch_tools(), timeout or self.server.start_timeout)

    def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call `tool` on the server; a `ToolFailure` says why when it did not answer."""
        deadline = self.server.call_timeout
        budget = self.server.start_timeout + deadline
        return self._run(self._call(tool, arguments, deadline), budget)

    def close(self) -> None:
        """Close the session and stop the server's process; safe to repeat."""
        if self.runtime.running:
            self.runtime.run(self._drop(), _CLOSE_TIMEOUT)

    async def shut(self) -> None:
        """Close for good (Hearth is stopping): no session opens after this."""
        self._closed = True
        await self._drop()

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
            page = await self._guarded(client.list_tools(cursor=cursor), self.server.start_timeout)
            found.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return found

    async def ping(self) -> None:
        """Check that the session still answers; raises `ToolFailure` (and drops it) if not."""
        client = self._client
        if client is None:
            raise ToolFailure(self.problem or self._stopped("no session"))
        await self._guarded(client.send_ping(), self.server.start_timeout)

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
                self.session_did_change()
            raise

    async def _answer(self, request: Awaitable[_T], deadline: float) -> _T:
        from mcp.shared.exceptions import MCPError

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
        # Someone is starting the server already: its start, good or bad, serves this caller.
        joined = self._opening.locked()
        async with self._opening:
            if self._closed:
                raise ToolFailure(f"the MCP server {self.name!r} is stopped: Hearth is closing")
            if self._client is not None and self._holder is not None and not self._holder.done():
                return self._client
            if joined and self.problem:
                raise ToolFailure(self.problem)
            await self._drop()
            self._client = await self._open()
            self.problem = ""
            self.session_did_change()
            return self._client

    async def _open(self) -> mcp.Client:
        ready: asyncio.Future[mcp.Client] = asyncio.get_running_loop().create_future()
        # Read here: a start given up on fails later, with nobody left to read why.
        ready.add_done_callback(lambda done: done.cancelled() or done.exception())
        closing = asyncio.Event()
        holder = asyncio.create_task(self._hold(ready, closing), name=f"mcp {self.name}")
        self._closing, self._holder, self._ready = closing, holder, ready
        limit = self.server.start_timeout
        try:
            return await asyncio.wait_for(asyncio.shield(ready), limit)
        except TimeoutError:
            self.problem = f"the MCP server {self.name!r} did not start within {limit:g} s"
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
                stopped = RuntimeError("it was stopped while starting")
                ready.set_exception(error if isinstance(error, Exception) else stopped)
            if not isinstance(error, Exception):
                raise
            logger.info("MCP server %r closed: %s", self.name, _reason(error))

    @asynccontextmanager
    async def _started(self) -> AsyncIterator[mcp.Client]:
        """A session with the server; a stdio server's stderr goes to its log meanwhile."""
        # Here, not at the top: the client takes most of a second to import, and registering
        # a server's connector (every `hearth` command does) must not pay for it.
        import mcp
        from mcp.client.stdio import stdio_client

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
        holder, closing, ready = self._holder, self._closing, self._ready
        had_session = self._client is not None
        self._client = self._holder = self._closing = self._ready = None
        if had_session:
            self.session_did_change()
        if holder is None or closing is None:
            return
        closing.set()
        if ready is None or not ready.done():
            # Still starting (a server that never answers): only cancelling ends the handshake;
            # the SDK still closes the process in full, shielded.
            holder.cancel()
        # wait(), not wait_for(): a holder ended by cancelling must not cancel this caller.
        done, _ = await asyncio.wait({holder}, timeout=_CLOSE_TIMEOUT)
        if not done:
            holder.cancel()

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
