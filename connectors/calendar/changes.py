"""What each calendar change replaced, kept so undo can put it back exactly."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hearth import UndoFailed

Action = Literal["created", "updated", "deleted"]


@dataclass(frozen=True)
class ChangeRecord:
    """One change: the object before it (None for a create) and the version it left."""

    id: str
    action: Action
    calendar: str
    uid: str
    before_ics: str | None
    after_etag: str | None


class ChangeLog:
    """A small SQLite table of changes, written before the tool returns its result."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS changes (id TEXT PRIMARY KEY, action TEXT, "
            "calendar TEXT, uid TEXT, before_ics TEXT, after_etag TEXT)"
        )

    def record(
        self,
        action: Action,
        calendar: str,
        uid: str,
        before_ics: str | None,
        after_etag: str | None,
    ) -> ChangeRecord:
        record = ChangeRecord(uuid.uuid4().hex[:12], action, calendar, uid, before_ics, after_etag)
        with self._lock:
            self._db.execute(
                "INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?)",
                (record.id, action, calendar, uid, before_ics, after_etag),
            )
        return record

    def get(self, change_id: str) -> ChangeRecord:
        with self._lock:
            row = self._db.execute(
                "SELECT id, action, calendar, uid, before_ics, after_etag FROM changes "
                "WHERE id = ?",
                (change_id,),
            ).fetchone()
        if row is None:
            raise UndoFailed("Hearth has no record of what this change replaced")
        return ChangeRecord(*row)

    def close(self) -> None:
        with self._lock:
            self._db.close()
