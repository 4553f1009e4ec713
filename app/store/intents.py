"""Side-effect intents: `intended` is on disk before a side effect runs, so a crash is noticed.

An intent moves `intended -> executed | failed | partial`: `failed` means it certainly did not
happen, `partial` that a batch stopped half-way with some items changed (the undo journal says
which). Each intent names its owner, the database handle that recorded it (`Database.owner`).
One still `intended` at startup whose owner is gone belongs to a run that died mid-effect:
`reconcile()` marks it `unknown`, and only the user (after the connector has checked, e.g. Sent by
Message-ID) resolves it. Nothing here retries.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from hearth.store.db import Database, NotFound, StoreError, from_stored_time, utc_now

IntentState = Literal["intended", "executed", "failed", "partial", "unknown"]

_COLUMNS = "id, call_id, tool, arguments, state, created_at, updated_at, detail"

MIGRATIONS = [
    [
        "CREATE TABLE intents ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " call_id TEXT NOT NULL,"
        " tool TEXT NOT NULL,"
        " arguments TEXT NOT NULL,"
        " state TEXT NOT NULL CHECK (state IN ('intended', 'executed', 'failed', 'unknown')),"
        " created_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL,"
        " detail TEXT NOT NULL)",
        "CREATE INDEX intents_by_state ON intents (state)",
    ],
    [
        # State `partial` is new; SQLite cannot alter a CHECK, so the table is rebuilt.
        "CREATE TABLE intents_rebuilt ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " call_id TEXT NOT NULL,"
        " tool TEXT NOT NULL,"
        " arguments TEXT NOT NULL,"
        " state TEXT NOT NULL CHECK (state IN"
        "   ('intended', 'executed', 'failed', 'partial', 'unknown')),"
        " created_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL,"
        " detail TEXT NOT NULL)",
        f"INSERT INTO intents_rebuilt ({_COLUMNS}) SELECT {_COLUMNS} FROM intents ORDER BY id",
        "UPDATE sqlite_sequence SET seq = max(seq,"
        " coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'intents'), 0))"
        " WHERE name = 'intents_rebuilt'",
        "DROP TABLE intents",
        "ALTER TABLE intents_rebuilt RENAME TO intents",
        "CREATE INDEX intents_by_state ON intents (state)",
    ],
    [
        # Which owner (see hearth.store.owners) recorded it; NULL on rows from before owners.
        "ALTER TABLE intents ADD COLUMN owner TEXT",
    ],
]


@dataclass(frozen=True, slots=True)
class Intent:
    id: int
    call_id: str
    tool: str
    arguments: dict[str, Any]
    state: IntentState
    created_at: datetime
    updated_at: datetime
    detail: str


class IntentLog:
    """Record side effects before they run and what became of them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("intents", MIGRATIONS)

    def intend(self, call_id: str, tool: str, arguments: Mapping[str, Any]) -> int:
        """Record that a side effect is about to run; committed before this returns."""
        now = utc_now()
        encoded = json.dumps(dict(arguments), ensure_ascii=False, default=str)
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO intents (call_id, tool, arguments, state, created_at, updated_at,"
                " detail, owner) VALUES (?, ?, ?, 'intended', ?, ?, '', ?)",
                (call_id, tool, encoded, now, now, self.db.owner),
            )
        return int(cast(int, cursor.lastrowid))

    def executed(self, intent_id: int, detail: str = "") -> None:
        """The side effect happened; `detail` says how to find it (a Message-ID, an ETag)."""
        self._move(intent_id, ("intended",), "executed", detail)

    def failed(self, intent_id: int, detail: str = "") -> None:
        """The side effect certainly did not happen."""
        self._move(intent_id, ("intended",), "failed", detail)

    def partial(self, intent_id: int, detail: str = "") -> None:
        """The side effect stopped half-way: some items changed; `detail` says which."""
        self._move(intent_id, ("intended",), "partial", detail)

    def resolve(
        self, intent_id: int, state: Literal["executed", "failed"], detail: str = ""
    ) -> None:
        """Settle an `unknown` intent once the user (or a read-back) has said what happened."""
        if state not in ("executed", "failed"):
            raise StoreError(self.db.path, f"an intent resolves to executed or failed, not {state}")
        self._move(intent_id, ("unknown",), state, detail)

    def reconcile(self, live: Collection[str] = ()) -> list[Intent]:
        """At startup: mark `intended` intents `unknown`; return all `unknown` ones.

        An intent whose owner is in `live` is still running and is left alone; any other (one
        with no owner too) is taken to belong to a process that died. `recover` says who lives.
        """
        spared = sorted(live)
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE intents SET state = 'unknown', updated_at = ? WHERE state = 'intended'"
                f" AND (owner IS NULL OR owner NOT IN ({', '.join('?' * len(spared))}))",
                (utc_now(), *spared),
            )
            rows = conn.execute("SELECT * FROM intents WHERE state = 'unknown' ORDER BY id")
            return [_intent(row) for row in rows.fetchall()]

    def open_owners(self) -> set[str]:
        """The owners of intents still `intended`: whose process must be asked if it lives."""
        rows = self.db.query(
            "SELECT DISTINCT owner FROM intents WHERE state = 'intended' AND owner IS NOT NULL"
        )
        return {str(row["owner"]) for row in rows}

    def unknown(self) -> list[Intent]:
        """Intents waiting for the user to say whether they happened, oldest first."""
        rows = self.db.query("SELECT * FROM intents WHERE state = 'unknown' ORDER BY id")
        return [_intent(row) for row in rows]

    def get(self, intent_id: int) -> Intent:
        rows = self.db.query("SELECT * FROM intents WHERE id = ?", (intent_id,))
        if not rows:
            raise NotFound(self.db.path, f"there is no intent {intent_id}")
        return _intent(rows[0])

    def _move(
        self, intent_id: int, sources: tuple[IntentState, ...], target: IntentState, detail: str
    ) -> None:
        marks = ", ".join("?" * len(sources))
        with self.db.transaction() as conn:
            cursor = conn.execute(
                f"UPDATE intents SET state = ?, detail = ?, updated_at = ?"
                f" WHERE id = ? AND state IN ({marks})",
                (target, detail, utc_now(), intent_id, *sources),
            )
            if cursor.rowcount == 0:
                current = self.get(intent_id).state  # raises NotFound for a wrong id
                raise StoreError(
                    self.db.path, f"intent {intent_id} is {current}; it cannot become {target}"
                )


def _intent(row: sqlite3.Row) -> Intent:
    return Intent(
        id=row["id"],
        call_id=row["call_id"],
        tool=row["tool"],
        arguments=json.loads(row["arguments"]),
        state=row["state"],
        created_at=from_stored_time(row["created_at"]),
        updated_at=from_stored_time(row["updated_at"]),
        detail=row["detail"],
    )
