"""Startup recovery: what a process that died mid-call left behind, settled in every log."""

from __future__ import annotations

from hearth.store.audit import INTERRUPTED, AuditLog
from hearth.store.intents import Intent, IntentLog
from hearth.store.undo import UndoLog


def recover(intents: IntentLog, audit: AuditLog, undo_log: UndoLog) -> list[Intent]:
    """Mark interrupted calls `unknown` (intents and audit) and keep their journaled steps.

    An undo entry left `running` becomes `unknown` and undoable from the steps it recorded, or
    is dropped when it recorded none. Returns the intents waiting for the user to resolve.
    Call it only while no other Hearth process is running: a call still open is taken to
    belong to a process that died.
    """
    with intents.db.transaction():
        kept = undo_log.reconcile()
        summaries = {entry.call_id: _interrupted(entry.result) for entry in kept}
        audit.mark_interrupted(summaries)
        return intents.reconcile()


def _interrupted(steps: dict[str, list[object]]) -> str:
    counted = ", ".join(f"{key}: {len(items)}" for key, items in steps.items())
    return f"{INTERRUPTED}. Journaled before it stopped ({counted}); undo can put them back"
