"""The undo journal: what each reversible tool call did, so the user can revert it later.

A row is written `running` before a tool with an `undo` runs, and the tool's `journal_step`
records (one item each, committed before that item changes) are kept under it. When the tool
returns, the row becomes `done` and `result` is the tool's own return value, which carries
whatever the undo needs (where a file went, what a file was before). When it stops half-way
(`partial`: it failed; `unknown`: the process died and `reconcile()` found it), `result` is
built from the steps, `{key: [item, ...]}`; a row with no steps is dropped, as nothing changed.
Undoing marks the row instead of deleting it, so the journal also shows what was reverted.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from pydantic_core import to_jsonable_python

from hearth.store.db import Database, NotFound, StoreError, from_stored_time, utc_now

MIGRATIONS = [
    [
        "CREATE TABLE undo ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " call_id TEXT NOT NULL UNIQUE,"
        " conversation_id INTEGER,"
        " tool TEXT NOT NULL,"
        " arguments TEXT NOT NULL,"
        " result TEXT NOT NULL,"
        " summary TEXT NOT NULL,"
        " done_at TEXT NOT NULL,"
        " undone_at TEXT,"
        " undo_summary TEXT NOT NULL DEFAULT '')",
    ],
    [
        "ALTER TABLE undo ADD COLUMN state TEXT NOT NULL DEFAULT 'done'"
        " CHECK (state IN ('running', 'done', 'partial', 'unknown'))",
        "CREATE TABLE undo_steps ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " undo_id INTEGER NOT NULL REFERENCES undo (id) ON DELETE CASCADE,"
        " key TEXT NOT NULL,"
        " item TEXT NOT NULL)",
        "CREATE INDEX undo_steps_by_entry ON undo_steps (undo_id)",
    ],
    [
        # The owner (hearth.store.owners) running it; NULL on entries from before owners.
        "ALTER TABLE undo ADD COLUMN owner TEXT",
    ],
]

JournalState = Literal["running", "done", "partial", "unknown"]
"""running: the tool has not returned. done: `result` is its return value. partial (it failed
half-way) and unknown (the process died): `result` is built from the steps it recorded."""
Steps = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class UndoEntry:
    id: int
    call_id: str
    conversation_id: int | None
    tool: str
    arguments: dict[str, Any]
    result: Any
    summary: str
    done_at: datetime
    undone_at: datetime | None
    undo_summary: str
    state: JournalState


class UndoLog:
    """Reversible actions, newest first, and whether each has been reverted."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("undo", MIGRATIONS)

    def record(
        self,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        result: Any,
        summary: str,
        conversation_id: int | None = None,
    ) -> int:
        """Record a finished call in one go (no steps): it is `done` at once."""
        with self.db.transaction():
            entry = self.begin(call_id, tool, arguments, summary, conversation_id)
            self.finish(call_id, result)
        return entry

    def begin(
        self,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        summary: str,
        conversation_id: int | None = None,
    ) -> int:
        """Before a call runs: its `running` entry, durable, that `add_step` records go under."""
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO undo (call_id, conversation_id, tool, arguments, result, summary,"
                " done_at, state, owner) VALUES (?, ?, ?, ?, 'null', ?, ?, 'running', ?)",
                (
                    call_id,
                    conversation_id,
                    tool,
                    _dumps(dict(arguments)),
                    summary,
                    utc_now(),
                    self.db.owner,
                ),
            )
        return int(cast(int, cursor.lastrowid))

    def add_step(self, entry_id: int, key: str, item: Mapping[str, Any]) -> None:
        """One item the running call is about to change, committed (durably) before it returns."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO undo_steps (undo_id, key, item) VALUES (?, ?, ?)",
                (entry_id, key, _dumps(dict(item))),
            )

    def steps(self, entry_id: int) -> Steps:
        """The items recorded under an entry, grouped by key, in the order they were recorded."""
        rows = self.db.query(
            "SELECT key, item FROM undo_steps WHERE undo_id = ? ORDER BY id", (entry_id,)
        )
        grouped: Steps = {}
        for row in rows:
            grouped.setdefault(row["key"], []).append(json.loads(row["item"]))
        return grouped

    def finish(self, call_id: str, result: Any) -> None:
        """The call returned: its own `result` replaces the steps as what undo reads."""
        self._settle(call_id, "done", _dumps(result))

    def stop(self, call_id: str, state: Literal["partial", "unknown"]) -> Steps:
        """The call stopped half-way: undo reads its steps; with none, the entry is dropped."""
        entry_id = self._running_id(call_id)
        with self.db.transaction() as conn:
            steps = self.steps(entry_id)
            if steps:
                self._settle(call_id, state, _dumps(steps))
            else:
                conn.execute("DELETE FROM undo WHERE id = ?", (entry_id,))
        return steps

    def reconcile(self, live: Collection[str] = ()) -> list[UndoEntry]:
        """At startup: every entry a dead process left `running` stops as `unknown`.

        Returns those left undoable (the ones that had steps). Like `IntentLog.reconcile`, it
        leaves alone an entry whose owner is in `live`.
        """
        spared = sorted(live)
        rows = self.db.query(
            "SELECT call_id FROM undo WHERE state = 'running' AND (owner IS NULL OR owner NOT IN"
            f" ({', '.join('?' * len(spared))})) ORDER BY id",
            spared,
        )
        kept = []
        with self.db.transaction():
            for row in rows:
                if self.stop(row["call_id"], "unknown"):
                    kept.append(self.get(row["call_id"]))
        return kept

    def open_owners(self) -> set[str]:
        """The owners of entries still `running`: whose process must be asked if it lives."""
        rows = self.db.query(
            "SELECT DISTINCT owner FROM undo WHERE state = 'running' AND owner IS NOT NULL"
        )
        return {str(row["owner"]) for row in rows}

    def pending(self, limit: int | None = None) -> list[UndoEntry]:
        """Actions not yet reverted (and not still running), newest first."""
        sql = "SELECT * FROM undo WHERE undone_at IS NULL AND state != 'running' ORDER BY id DESC"
        rows = self.db.query(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        return [_entry(row) for row in rows]

    def get(self, call_id: str) -> UndoEntry:
        rows = self.db.query("SELECT * FROM undo WHERE call_id = ?", (call_id,))
        if not rows:
            raise NotFound(self.db.path, f"call {call_id} left nothing to undo")
        return _entry(rows[0])

    def mark_undone(self, call_id: str, summary: str) -> None:
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE undo SET undone_at = ?, undo_summary = ?"
                " WHERE call_id = ? AND undone_at IS NULL",
                (utc_now(), summary, call_id),
            )
        if cursor.rowcount == 0:
            raise StoreError(self.db.path, f"call {call_id} was already undone")

    def _running_id(self, call_id: str) -> int:
        rows = self.db.query(
            "SELECT id FROM undo WHERE call_id = ? AND state = 'running'", (call_id,)
        )
        if not rows:
            raise StoreError(self.db.path, f"call {call_id} has no running undo entry")
        return int(rows[0]["id"])

    def _settle(self, call_id: str, state: JournalState, result: str) -> None:
        # An `unknown` entry keeps the time it began: when its process died is not known.
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE undo SET state = ?, result = ?,"
                " done_at = CASE WHEN ? = 'unknown' THEN done_at ELSE ? END"
                " WHERE call_id = ? AND state = 'running'",
                (state, result, state, utc_now(), call_id),
            )
        if cursor.rowcount == 0:
            raise StoreError(self.db.path, f"call {call_id} has no running undo entry")


class Journal:
    """One running call's steps: kept in its undo entry when it has one, else only in memory.

    Steps kept in memory still tell a half-done call (`partial`) from one that did nothing.
    """

    def __init__(self, undo_log: UndoLog | None, entry: int | None = None) -> None:
        self.undo_log = undo_log
        self.entry = entry
        self.steps: Steps = {}

    def step(self, key: str, item: dict[str, Any]) -> None:
        """The sink: commit the item to the undo entry (durably) before the tool changes it."""
        if self.undo_log is not None and self.entry is not None:
            self.undo_log.add_step(self.entry, key, item)
        self.steps.setdefault(key, []).append(item)

    def stop(self, call_id: str) -> Steps:
        """The call raised: the steps undo will read (its entry is dropped when there are none)."""
        if self.undo_log is not None and self.entry is not None:
            return self.undo_log.stop(call_id, "partial")
        return self.steps


def _dumps(value: object) -> str:
    return json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False)


def _entry(row: sqlite3.Row) -> UndoEntry:
    return UndoEntry(
        id=row["id"],
        call_id=row["call_id"],
        conversation_id=row["conversation_id"],
        tool=row["tool"],
        arguments=json.loads(row["arguments"]),
        result=json.loads(row["result"]),
        summary=row["summary"],
        done_at=from_stored_time(row["done_at"]),
        undone_at=from_stored_time(row["undone_at"]) if row["undone_at"] else None,
        undo_summary=row["undo_summary"],
        state=row["state"],
    )
