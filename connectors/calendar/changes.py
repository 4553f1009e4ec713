"""What each calendar change replaced, kept so undo can put it back exactly.

A create is journaled (`hearth.journal_step`) before its write, with the change id its record
will get and a fingerprint of the event as written, so undo can remove an event that reached its
calendar even when Hearth was killed before the record was kept.
"""

from __future__ import annotations

import hashlib
import re
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import icalendar

from hearth import UndoFailed, open_sqlite

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
        # Durable: what a change replaced is kept nowhere else, and undo needs it.
        self._db = open_sqlite(path, durable=True)
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
        *,
        change_id: str | None = None,
    ) -> ChangeRecord:
        """Keep one change; `change_id` is the one journaled before it, if any."""
        record = ChangeRecord(
            change_id or new_change_id(), action, calendar, uid, before_ics, after_etag
        )
        with self._lock:
            self._db.execute(
                "INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?)",
                (record.id, action, calendar, uid, before_ics, after_etag),
            )
        return record

    def get(self, change_id: str) -> ChangeRecord:
        record = self.find(change_id)
        if record is None:
            raise UndoFailed("Hearth has no record of what this change replaced")
        return record

    def find(self, change_id: str) -> ChangeRecord | None:
        """The change kept under this id; None if it never was (the call was cut short)."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, action, calendar, uid, before_ics, after_etag FROM changes "
                "WHERE id = ?",
                (change_id,),
            ).fetchone()
        return None if row is None else ChangeRecord(*row)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def new_change_id() -> str:
    """A fresh id for a change, to journal before the change is made."""
    return uuid.uuid4().hex[:12]


def fingerprint(ics: str) -> str:
    """A sha256 of the object's events as icalendar reads them, property order aside.

    A file or server that stores the text with other folding, line ends, property order or time
    zone definitions gives the same fingerprint; an edit to the event gives another.
    """
    events = icalendar.Calendar.from_ical(ics).walk("VEVENT")
    text = "".join(event.to_ical().decode("utf-8") for event in events)
    lines = sorted(re.sub(r"\r?\n[ \t]", "", text).splitlines())
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
