"""Where a stdio MCP server's stderr goes: a log file of its own, never the user's terminal.

A server writes what it likes to stderr: "Starting default (STDIO) server...", a log line for
each call that failed, a traceback. Inherited, all of it would land in the middle of every Hearth
command's output, looking like Hearth's own. Each server appends to `<data>/logs/mcp/<name>.log`
instead, and what it said last explains a server that would not start or that stopped.
"""

from __future__ import annotations

import time
from typing import TextIO

from hearth import data_dir
from hearth.connectors.mcp.names import file_stem

# Past this size the log starts again, the previous one kept beside it as `.old`.
SIZE_LIMIT = 1_000_000
_LAST_LINES = 3
_LAST_CHARS = 400


class ServerLog:
    """The stderr log of the MCP server `server`; `open()` once per start of its process."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.path = data_dir() / "logs" / "mcp" / f"{file_stem(server)}.log"
        # Where the latest start's output begins, so an old run's words never explain this one.
        self._start: int | None = None

    def open(self) -> TextIO:
        """The file the server's stderr is appended to, marked with this start's time."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size > SIZE_LIMIT:
            self.path.replace(self.path.with_name(self.path.name + ".old"))
        handle = self.path.open("a", encoding="utf-8")
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"--- {stamp}: Hearth starts the MCP server {self.server!r}\n")
        handle.flush()  # before the server writes after it, through its own descriptor
        self._start = handle.tell()
        return handle

    def last_words(self) -> str:
        """The last lines the server wrote since its latest start, on one line ("" if none)."""
        if self._start is None:
            return ""
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._start)
                said = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        lines = [line.strip() for line in said.splitlines() if line.strip()]
        words = " / ".join(lines[-_LAST_LINES:])
        return words if len(words) <= _LAST_CHARS else "…" + words[-_LAST_CHARS:]

    def explained(self, problem: str) -> str:
        """`problem`, with what the server last wrote to its stderr when it wrote anything."""
        words = self.last_words()
        return f"{problem}; it said: {words}" if words else problem
