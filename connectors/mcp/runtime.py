"""One asyncio event loop on a daemon thread, where every MCP session lives.

MCP's client is async (anyio); Hearth's callers are threads (the agent's worker, Qt's pool,
the CLI). They hand coroutines to this loop and wait for the answer with a deadline, so no
caller's own thread ever runs an event loop. News from the loop (a server came up) goes out on
a thread of its own, in order: a listener that waits for a lock never stalls every server.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

THREAD_NAME = "hearth-mcp"
NEWS_THREAD_NAME = "hearth-mcp-news"
_STOP_TIMEOUT = 15.0

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


class McpRuntime:
    """The loop thread, started on first use and stopped by `stop()` (safe to repeat)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        # Run on the loop before it stops: each session's close.
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._news: queue.SimpleQueue[Callable[[], None] | None] | None = None

    def run(self, work: Coroutine[Any, Any, _T], timeout: float) -> _T:
        """Run `work` on the loop and wait for it; TimeoutError (and `work` cancelled) after
        `timeout` seconds."""
        future = asyncio.run_coroutine_threadsafe(work, self._running_loop())
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s") from None

    def submit(self, work: Coroutine[Any, Any, object]) -> None:
        """Start `work` on the loop without waiting for it."""
        asyncio.run_coroutine_threadsafe(work, self._running_loop())

    def tell(self, news: Callable[[], None]) -> None:
        """Run `news()` on the news thread, after the news told before it; never waits."""
        with self._lock:
            if self._news is None:
                self._news = queue.SimpleQueue()
                threading.Thread(
                    target=_deliver, args=(self._news,), name=NEWS_THREAD_NAME, daemon=True
                ).start()
            self._news.put(news)

    def on_stop(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Have `stop()` await `closer()` on the loop before the loop ends."""
        with self._lock:
            self._closers.append(closer)

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Close every session, then end the loop and its thread; nothing happens twice."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            self._stop_loop(loop, thread)
        finally:
            self._end_news()

    def _stop_loop(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
        closing = asyncio.run_coroutine_threadsafe(self._close_all(), loop)
        try:
            closing.result(_STOP_TIMEOUT)
        except (concurrent.futures.TimeoutError, Exception) as error:
            # Said, not hidden: Hearth's exit waited this long on a server it could not close.
            logger.warning("the MCP servers did not close within %g s: %r", _STOP_TIMEOUT, error)
            closing.cancel()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(_STOP_TIMEOUT)
        atexit.unregister(self.stop)

    def _end_news(self) -> None:
        # Not joined: it may be telling a listener that waits for the caller's own lock.
        with self._lock:
            news, self._news = self._news, None
        if news is not None:
            news.put(None)

    async def _close_all(self) -> None:
        with self._lock:
            closers = list(self._closers)
        await asyncio.gather(*(closer() for closer in closers), return_exceptions=True)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=_serve, args=(loop,), name=THREAD_NAME, daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
                # Servers are child processes: close them even if nobody calls stop().
                atexit.register(self.stop)
            return self._loop


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()


def _deliver(news: queue.SimpleQueue[Callable[[], None] | None]) -> None:
    while (item := news.get()) is not None:
        try:
            item()
        except Exception:
            logger.exception("telling of an MCP server's news failed")
