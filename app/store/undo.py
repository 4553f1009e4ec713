"""The undo journal: what each reversible tool call did, so the user can revert it later.

A row is written after a tool with an `undo` ran; `result` is the tool's own return value,
which carries whatever the undo needs (where a file went, what a file was before). Undoing
marks the row instead of deleting it, so the journal also shows what was reverted.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

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
]


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
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO undo (call_id, conversation_id, tool, arguments, result, summary,"
                " done_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    call_id,
                    conversation_id,
                    tool,
                    _dumps(dict(arguments)),
                    _dumps(result),
                    summary,
                    utc_now(),
                ),
            )
        return int(cast(int, cursor.lastrowid))

    def pending(self, limit: int | None = None) -> list[UndoEntry]:
        """Actions not yet reverted, newest first."""
        sql = "SELECT * FROM undo WHERE undone_at IS NULL ORDER BY id DESC"
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
    )
