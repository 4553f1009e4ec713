"""Keeping one MCP server connected in the background, and saying how it stands.

A front end starts it and goes on at once: the server is started on the runtime's loop, its
tools listed, and then pinged now and then. A server that does not answer is tried again
after 1 s, 2 s, 4 s, ... at most `RETRY_CAP` apart, so one that was down at start (or went
away later) comes back by itself, and its tools with it. Nothing here waits on a caller's
thread; every change of state is told through `on_change`, on the runtime's news thread.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from hearth import ToolFailure
from hearth.connectors.mcp.link import ServerLink

if TYPE_CHECKING:
    from mcp_types import Tool as McpTool

FIRST_RETRY = 1.0
RETRY_CAP = 60.0
# A quiet server is asked whether it is still there this often, so a crash shows while idle.
PING_INTERVAL = 30.0

logger = logging.getLogger(__name__)

Phase = Literal["not started", "connecting", "ready", "not answering", "stopped"]


@dataclass(frozen=True)
class ServerState:
    """Where one server stands; `retry_at` is a `time.monotonic()` moment."""

    phase: Phase = "not started"
    problem: str = ""
    retry_at: float | None = None

    def line(self, now: float | None = None) -> str:
        """The state in words: "connecting", "not answering: ...; retrying in 4 s"."""
        if self.phase != "not answering":
            return self.phase
        said = f"not answering: {self.problem}"
        if self.retry_at is None:
            return said
        wait = math.ceil(max(0.0, self.retry_at - (now or time.monotonic())))
        return f"{said}; retrying in {wait} s" if wait else f"{said}; retrying now"


class ServerUpkeep:
    """Starts `link`'s server in the background and keeps it up; `listed` hears each listing
    of its tools (on the loop), `on_change` each change of state (on the news thread)."""

    def __init__(
        self,
        link: ServerLink,
        listed: Callable[[list[McpTool]], None],
        on_change: Callable[[], None],
    ) -> None:
        self.link = link
        self.state = ServerState()
        self._listed = listed
        self._on_change = on_change
        self._task: asyncio.Task[None] | None = None
        self._started = False
        self._stopped = False
        self._woken: asyncio.Event | None = None
        # Set once the first try ended, either way: for callers that choose to wait for it.
        self.first_try_done = asyncio.Event()
        link.runtime.on_stop(self._stop)

    def start(self) -> None:
        """Begin (once): connect in the background; returns at once."""
        if self._started:
            return
        self._started = True
        self.link.runtime.submit(self._begin())

    async def _begin(self) -> None:
        if self._stopped:
            return
        self._woken = asyncio.Event()
        self.link.session_did_change = self._woken.set
        self._task = asyncio.current_task()
        try:
            await self._keep()
        except Exception:
            # A bug of Hearth's: nobody waits on this task, so it would pass in silence.
            logger.exception("keeping the MCP server %r up failed", self.link.name)
            raise

    async def _keep(self) -> None:
        delay = FIRST_RETRY
        while not self._stopped:
            self._set(ServerState("connecting"))
            try:
                listed = await self.link.fetch_tools()
            except ToolFailure as failure:
                if self._stopped:
                    return
                retry_at = time.monotonic() + delay
                self._set(ServerState("not answering", problem=str(failure), retry_at=retry_at))
                self.first_try_done.set()
                await self._until_connected(delay)
                delay = min(delay * 2, RETRY_CAP)
                continue
            if self._stopped:
                return
            delay = FIRST_RETRY
            self._listed(listed)
            self._set(ServerState("ready"))
            self.first_try_done.set()
            await self._while_connected()

    async def _until_connected(self, delay: float) -> None:
        """Wait out `delay`, or less when a call meanwhile reached the server itself."""
        deadline = time.monotonic() + delay
        while not self.link.connected and (left := deadline - time.monotonic()) > 0:
            await self._woken_within(left)

    async def _while_connected(self) -> None:
        """Return once the session is lost: a call met a dead server, or a ping did."""
        while self.link.connected:
            if not await self._woken_within(PING_INTERVAL):
                try:
                    await self.link.ping()
                except ToolFailure:
                    return

    async def _woken_within(self, seconds: float) -> bool:
        assert self._woken is not None
        self._woken.clear()
        # wait(), not wait_for(): on 3.11 wait_for() drops a cancel that meets a wake-up.
        waiter = asyncio.ensure_future(self._woken.wait())
        try:
            done, _ = await asyncio.wait({waiter}, timeout=seconds)
        finally:
            waiter.cancel()
        return bool(done)

    async def _stop(self) -> None:
        self._stopped = True
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            await asyncio.wait({task})
        if self._started:
            self._set(ServerState("stopped"))
        self.first_try_done.set()

    def _set(self, state: ServerState) -> None:
        self.state = state
        self.link.runtime.tell(self._on_change)
