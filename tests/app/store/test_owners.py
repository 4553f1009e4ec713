"""Owners: a live process's open calls are left alone by recovery; a dead one's become `unknown`.

Owners are told apart by OS locks, so these use real handles and a real process killed with
SIGKILL, not a fake clock or a stub.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.ruling import Decider, Reason, Ruling
from hearth.store import (
    AuditLog,
    Database,
    IntentLog,
    StoreError,
    UndoLog,
    audit_schema,
    intents,
    open_database,
    recover,
    undo,
)
from hearth.store.db import utc_now
from hearth.store.owners import Owner, is_alive, lock_folder, sweep

ALLOWED = Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once.")
HOLDER = """
import sys, time
from pathlib import Path
from hearth.store.owners import Owner

owner = Owner.claim(Path(sys.argv[1]))
print(owner.id, flush=True)
time.sleep(600)
"""


def open_call(db: Database, call_id: str) -> None:
    """A call as the executor leaves it while the tool runs: proposed, intended, running."""
    AuditLog(db).append(
        call_id=call_id, tool="files.move", arguments={}, ruling=ALLOWED, outcome="proposed"
    )
    IntentLog(db).intend(call_id, "files.move", {})
    UndoLog(db).begin(call_id, "files.move", {}, "move 2 files")


def states(db: Database, call_id: str) -> tuple[str, str, str]:
    """(intent state, last audit outcome, undo state) of one call."""
    intent = db.query("SELECT state FROM intents WHERE call_id = ?", (call_id,))[0]["state"]
    outcome = AuditLog(db).entries(call_id=call_id)[-1].outcome
    rows = db.query("SELECT state FROM undo WHERE call_id = ?", (call_id,))
    return intent, outcome, rows[0]["state"] if rows else "dropped"


def recover_with(db: Database) -> list[str]:
    return [i.call_id for i in recover(IntentLog(db), AuditLog(db), UndoLog(db))]


def test_an_owner_is_alive_while_held_and_gone_once_released(tmp_path: Path) -> None:
    owner = Owner.claim(tmp_path)
    assert is_alive(tmp_path, owner.id)
    assert sweep(tmp_path) == []  # a held lock file stays
    owner.release()
    assert not is_alive(tmp_path, owner.id)
    assert list(tmp_path.iterdir()) == []
    assert not is_alive(tmp_path, "../../etc/passwd")  # not an owner id: nothing holds it


def test_an_owner_killed_with_sigkill_is_gone_and_its_lock_file_swept(tmp_path: Path) -> None:
    kept = Owner.claim(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        killed = holder.stdout.readline().strip()
        assert is_alive(tmp_path, killed)
        assert sweep(tmp_path) == []
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    assert not is_alive(tmp_path, killed)
    assert (tmp_path / f"{killed}.lock").exists()  # the OS let go of the lock, not the file
    assert sweep(tmp_path) == [killed]
    assert [p.name for p in tmp_path.iterdir()] == [f"{kept.id}.lock"]
    assert is_alive(tmp_path, kept.id)
    kept.release()


def test_recovery_leaves_a_live_owners_call_alone_and_settles_it_once_the_owner_is_gone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hearth.db"
    window, terminal = open_database(path), open_database(path)
    window.claim_owner()
    terminal.claim_owner()
    open_call(window, "window-call")
    try:
        assert recover_with(terminal) == []
        assert states(terminal, "window-call") == ("intended", "proposed", "running")
        assert len(list(lock_folder(path).iterdir())) == 2  # the live owners' files stay
    finally:
        window.close()  # as the window's process ending lets go of its lock
    assert recover_with(terminal) == ["window-call"]
    assert states(terminal, "window-call") == ("unknown", "unknown", "dropped")
    terminal.close()
    assert list(lock_folder(path).iterdir()) == []


def test_a_call_without_an_owner_counts_as_interrupted(db: Database) -> None:
    db.claim_owner()
    open_call(db, "mine")
    unowned = open_database(db.path)  # like a Hearth from before owners: it claims none
    open_call(unowned, "old")
    unowned.close()
    assert recover_with(db) == ["old"]
    assert states(db, "mine") == ("intended", "proposed", "running")


def test_rows_from_before_the_owner_column_are_migrated_and_count_as_interrupted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hearth.db"
    with open_database(path) as old:
        old.migrate("intents", intents.MIGRATIONS[:2])
        old.migrate("audit", audit_schema.MIGRATIONS[:4])
        old.migrate("undo", undo.MIGRATIONS[:2])
        now = utc_now()
        with old.transaction() as conn:
            conn.execute(
                "INSERT INTO intents (call_id, tool, arguments, state, created_at, updated_at,"
                " detail) VALUES ('old', 'files.move', '{}', 'intended', ?, ?, '')",
                (now, now),
            )
            conn.execute(
                "INSERT INTO audit (at, call_id, tool, arguments, taint, decision, decided_by,"
                " outcome, result_summary) VALUES"
                " (?, 'old', 'files.move', '{}', '[]', 'allow', 'user', 'proposed', '')",
                (now,),
            )
    with open_database(path) as db:
        db.claim_owner()
        assert recover_with(db) == ["old"]
        assert [db.schema_version(name) for name in ("intents", "audit", "undo")] == [3, 7, 3]
        assert states(db, "old")[:2] == ("unknown", "unknown")


def test_a_closed_database_cannot_claim_an_owner(db: Database) -> None:
    db.close()
    with pytest.raises(StoreError, match="closed"):
        db.claim_owner()
