"""Startup recovery: what a process that died mid-call left behind, settled in every log."""

from __future__ import annotations

from hearth.store.audit import INTERRUPTED, AuditLog
from hearth.store.intents import Intent, IntentLog
from hearth.store.owners import is_alive, lock_folder, sweep
from hearth.store.undo import UndoLog


def recover(intents: IntentLog, audit: AuditLog, undo_log: UndoLog) -> list[Intent]:
    """Mark interrupted calls `unknown` (intents and audit) and keep their journaled steps.

    A call is interrupted when it is still open and its owner's lock is free (its process died)
    or it has no owner (recorded before owners); a call whose owner still holds its lock, such
    as the desktop window's while `hearth ask` starts, is left running. An undo entry left
    `running` becomes `unknown` and undoable from the steps it recorded, or is dropped when it
    recorded none. Returns the intents waiting for the user to resolve.
    """
    folder = lock_folder(intents.db.path)
    # Inside the write transaction no one can open a call, so the owners asked are all there are.
    with intents.db.transaction():
        owners = intents.open_owners() | audit.open_owners() | undo_log.open_owners()
        live = {owner for owner in owners if is_alive(folder, owner)}
        kept = undo_log.reconcile(live)
        summaries = {entry.call_id: _interrupted(entry.result) for entry in kept}
        audit.mark_interrupted(summaries, live)
        unresolved = intents.reconcile(live)
    sweep(folder)  # every gone owner's lock file, whether or not it left a call open
    return unresolved


def _interrupted(steps: dict[str, list[object]]) -> str:
    counted = ", ".join(f"{key}: {len(items)}" for key, items in steps.items())
    return f"{INTERRUPTED}. Journaled before it stopped ({counted}); undo can put them back"
