"""Per-item undo records for batch tools, written durably before each item changes.

A tool that changes several things (moves 14 files, trashes a folder's contents) calls
`journal_step` just before each item, so a batch that fails half-way, or a process killed
mid-batch, still leaves a record of every item that may have changed, and undo can put them
back. The executor installs the sink for the call it runs; outside such a call, nothing is kept.

The contract for a tool with an `undo`:
- Its result has one list field per key it journals (`Moved.moved`, `Trashed.trashed`), and
  every other field has a default: after a failure or a crash, undo receives `{key: [item, ...]}`
  built from the steps alone, validated into the tool's declared result type.
- Each item is recorded before its change, so its undo must accept an item whose change never
  happened (the file is still at `from`): leave it be, and say so, rather than fail.
- Call `journal_step` on the thread that runs the tool: the sink is a context variable, which
  a thread pool the tool starts would not see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

StepSink = Callable[[str, dict[str, Any]], None]

_sink: ContextVar[StepSink | None] = ContextVar("hearth_journal_sink", default=None)


def journal_step(key: str, item: Mapping[str, Any]) -> None:
    """Record one item of the running call's work before doing it.

    `key` is the field of the tool's result that lists such items (e.g. "moved"), and `item`
    one entry of that list, as undo will read it. Undo must accept an item whose change never
    happened (the process may have stopped between the record and the change).
    """
    sink = _sink.get()
    if sink is not None:
        sink(key, dict(item))


@contextmanager
def journaling(sink: StepSink) -> Iterator[None]:
    """Send `journal_step` records of the code run inside to `sink`."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)
