"""Startup recovery: a call a dead process left open is `unknown` in every log, its steps kept."""

from __future__ import annotations

from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, Database, IntentLog, UndoLog, recover

ALLOWED = Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once.")


def open_call(audit: AuditLog, intents: IntentLog, call_id: str) -> int:
    audit.append(
        call_id=call_id, tool="files.move", arguments={}, ruling=ALLOWED, outcome="proposed"
    )
    return intents.intend(call_id, "files.move", {})


def test_recover_settles_intents_audit_and_undo_together(db: Database) -> None:
    audit, intents, undo_log = AuditLog(db), IntentLog(db), UndoLog(db)
    open_call(audit, intents, "killed")
    entry = undo_log.begin("killed", "files.move", {}, "move 20 files")
    undo_log.add_step(entry, "moved", {"from": "a", "to": "b"})
    open_call(audit, intents, "before-any-step")
    undo_log.begin("before-any-step", "files.move", {}, "move 5 files")
    done = open_call(audit, intents, "finished")
    intents.executed(done)
    audit.record_outcome("finished", "executed")

    unresolved = recover(intents, audit, undo_log)

    assert [i.call_id for i in unresolved] == ["killed", "before-any-step"]
    assert [(e.call_id, e.outcome) for e in audit.entries() if e.outcome == "unknown"] == [
        ("killed", "unknown"),
        ("before-any-step", "unknown"),
    ]
    killed = audit.entries(call_id="killed")[-1].result_summary
    assert "moved: 1" in killed and "undo can put them back" in killed
    assert [(e.call_id, e.state) for e in undo_log.pending()] == [("killed", "unknown")]
    assert recover(intents, audit, undo_log) == unresolved  # nothing new the second time
    assert len(audit.entries()) == 6
