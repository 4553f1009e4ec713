"""Reverting a recorded action: asked for by the user, so recorded in the audit log, not gated.

An entry left `partial` or `unknown` (a call that stopped half-way) is undone like any other:
its result is `{key: [item, ...]}` built from the steps the tool journaled, and the tool's undo
must leave alone an item whose change never happened (see `hearth.store.journal`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from hearth.errors import HearthError, UndoFailed
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, UndoLog
from hearth.tools import ToolRegistry

UNDO_RULING = Ruling(True, Decider.USER, Reason.UNDO, "the user asked to undo it")


@dataclass(frozen=True, slots=True)
class Undone:
    """One reverted action: which call, which tool, and what the undo did."""

    call_id: str
    tool: str
    summary: str


def undo_call(tools: ToolRegistry, audit: AuditLog, undo_log: UndoLog, call_id: str) -> Undone:
    """Revert one action; UndoFailed says why when it cannot, and what was left as it was."""
    entry = undo_log.get(call_id)
    if entry.undone_at is not None:
        raise UndoFailed(f"{entry.summary} was already undone")
    if entry.state == "running":
        raise UndoFailed(f"{entry.summary} is still running; undo it once it has finished")
    tool = tools.get(entry.tool)
    if tool is None or tool.undo is None:
        raise UndoFailed(f"{entry.tool} is not available any more, so it cannot be undone")
    record_id = f"undo:{call_id}"
    audit.append(
        call_id=record_id,
        tool=entry.tool,
        arguments=entry.arguments,
        ruling=UNDO_RULING,
        outcome="proposed",
        conversation_id=entry.conversation_id,
        result_summary=f"undo {entry.summary}",
    )
    started = time.perf_counter()
    try:
        result = tool.undo(entry.arguments, entry.result)
    except Exception as error:
        text = f"{error}" if isinstance(error, HearthError) else f"{type(error).__name__}: {error}"
        audit.record_outcome(record_id, "failed", result_summary=text)
        raise UndoFailed(f"Could not undo {entry.summary}: {text}") from error
    summary = result if isinstance(result, str) else json.dumps(result, default=str)
    elapsed = round((time.perf_counter() - started) * 1000)
    audit.record_outcome(record_id, "executed", result_summary=summary, duration_ms=elapsed)
    undo_log.mark_undone(call_id, summary)
    return Undone(call_id, entry.tool, summary)
