"""Run parsers of untrusted files in child processes, each parse under a time limit and memory cap.

Not a `multiprocessing.Pool`: terminating a pool kills every worker, failing parses that had
nothing to do with the stuck one, and a task whose worker dies never completes. Here each call
checks out one worker of its own, so a timeout or crash kills only that worker and fails only
that parse; the next call starts a fresh worker.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import threading
import warnings
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

from hearth import HearthError

try:
    import resource
except ImportError:  # Windows: no rlimits; the time limit still applies.
    resource = None  # type: ignore[assignment]

Parser = Callable[[str, int], str]
"""A module-level function (it is pickled by name) taking a path and a character cap."""

_Task = tuple[Parser, str, int, float]
_Reply = tuple[str, str]


class SandboxError(Exception):
    """A parse produced no text; str() is a short reason fit to show a person."""


class ParseFailed(SandboxError):
    """The parser raised: the file is malformed or unsupported. str() is the error's message."""


class ParseRefused(SandboxError):
    """Raised by a parser to skip a file with exactly this reason ("encrypted PDF")."""


class ParseTimedOut(SandboxError):
    """The parser ran past its time limit and was killed."""


class ParserOutOfMemory(SandboxError):
    """The parser hit its memory cap."""


class ParserCrashed(SandboxError):
    """The parser's process died or could not start."""


class SandboxClosed(HearthError):
    """The extractor was closed; a parse that was waiting or running was abandoned."""


class ParserSandbox:
    """A thread-safe set of at most `workers` parser processes, started on first use."""

    def __init__(
        self,
        workers: int = 2,
        memory_mb: int = 768,
        tasks_per_worker: int = 200,
        start_seconds: float = 60.0,
    ) -> None:
        if workers < 1:
            raise ValueError(f"a parser sandbox needs at least one worker, not {workers}")
        self._context = multiprocessing.get_context("spawn")  # fork is unsafe: the app has threads
        self._memory_bytes = memory_mb << 20
        self._tasks_per_worker = tasks_per_worker
        self._start_seconds = start_seconds
        self._slots = threading.BoundedSemaphore(workers)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._closed = False

    def run(self, parse: Parser, path: Path, max_chars: int, seconds: float) -> str:
        """Text from `parse(path, max_chars)` in a worker; waits for a free worker first.

        Raises:
            SandboxError: The parse failed, timed out, ran out of memory or crashed.
            SandboxClosed: `close()` was called.
        """
        with self._slots:
            worker = self._checkout()
            healthy = False
            try:
                status, value = self._call(worker, (parse, str(path), max_chars, seconds), seconds)
                healthy = status != "memory"
            finally:
                self._checkin(worker, healthy)
        return _outcome(status, value, self._memory_bytes)

    def close(self) -> None:
        """Stop every worker, killing any parse in progress; idempotent."""
        with self._lock:
            self._closed = True
            idle, busy = list(self._idle), list(self._busy)
            self._idle.clear()
        for worker in busy:
            worker.process.kill()  # its caller sees the pipe close, then stops and reaps it
        for worker in idle:
            worker.stop()
        for worker in busy:
            worker.process.join(5)

    def _checkout(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise SandboxClosed("the text extractor is closed")
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    self._busy.add(worker)
                    return worker
                worker.stop()
            worker = _Worker(self._context, self._memory_bytes)
            self._busy.add(worker)
        try:
            worker.wait_ready(self._start_seconds)
        except BaseException as error:
            self._checkin(worker, healthy=False)
            if self._closed:
                raise SandboxClosed("the text extractor was closed") from error
            raise
        return worker

    def _call(self, worker: _Worker, task: _Task, seconds: float) -> _Reply:
        try:
            worker.tasks += 1
            worker.connection.send(task)
            if not worker.connection.poll(seconds):
                worker.process.kill()
                raise ParseTimedOut(f"timed out after {seconds:g} s")
            reply: _Reply = worker.connection.recv()
            return reply
        except (EOFError, OSError) as error:
            if self._closed:
                raise SandboxClosed("the text extractor was closed during a parse") from error
            worker.process.join(1)
            raise ParserCrashed(f"parser crashed ({_death(worker.process.exitcode)})") from error

    def _checkin(self, worker: _Worker, healthy: bool) -> None:
        with self._lock:
            self._busy.discard(worker)
            if healthy and not self._closed and worker.tasks < self._tasks_per_worker:
                self._idle.append(worker)
                return
        worker.stop()


class _Worker:
    """One parser process and the parent's end of its pipe."""

    def __init__(self, context: multiprocessing.context.SpawnContext, memory_bytes: int) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, memory_bytes), name="hearth-parser", daemon=True
        )
        self.process.start()
        child.close()
        self.tasks = 0

    def wait_ready(self, seconds: float) -> None:
        try:
            if self.connection.poll(seconds):
                self.connection.recv()
                return
        except (EOFError, OSError):
            self.process.join(1)
            cause = _death(self.process.exitcode)
            raise ParserCrashed(f"parser failed to start ({cause})") from None
        raise ParserCrashed(f"parser did not start within {seconds:g} s")

    def stop(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.connection.close()


def _outcome(status: str, value: str, memory_bytes: int) -> str:
    if status == "ok":
        return value
    if status == "memory":
        raise ParserOutOfMemory(f"parser ran out of memory (limit {memory_bytes >> 20} MB)")
    if status == "refused":
        raise ParseRefused(value)
    raise ParseFailed(value)


def _death(exitcode: int | None) -> str:
    """How a worker ended, for a reason in parentheses: "SIGSEGV", "exit status 1"."""
    if exitcode is None:
        return "no exit status"
    if exitcode < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-exitcode).name
    return f"exit status {exitcode}"


def _serve(connection: Connection, memory_bytes: int) -> None:
    """A worker's main loop: parse tasks until the parent closes the pipe or kills it."""
    if resource is not None:
        _limit(resource.RLIMIT_AS, memory_bytes)
        _limit(resource.RLIMIT_CORE, 0)  # a parser crashing on a hostile file leaves no core dump
    # Parsers warn loudly about broken files; the parent logs one line with the reason instead.
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    connection.send(("ready", ""))
    while True:
        try:
            parse, path, max_chars, seconds = connection.recv()
        except EOFError:
            return
        _limit_cpu(seconds)
        reply = _attempt(parse, path, max_chars)
        connection.send(reply)
        if reply[0] == "memory":
            return  # a MemoryError can leave a library half-updated; start clean instead


def _attempt(parse: Parser, path: str, max_chars: int) -> _Reply:
    try:
        return ("ok", parse(path, max_chars)[:max_chars])
    except MemoryError:
        return ("memory", "")
    except ParseRefused as refusal:
        return ("refused", str(refusal))
    except Exception as error:
        return ("failed", (str(error) or type(error).__name__)[:300])


def _limit_cpu(seconds: float) -> None:
    """Let SIGXCPU end this worker if it outlives a parent that died mid-parse."""
    if resource is None:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _limit(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime + seconds) + 10)


def _limit(which: int, soft: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    with contextlib.suppress(ValueError, OSError):  # macOS refuses some limits; carry on
        resource.setrlimit(which, (soft, hard))
