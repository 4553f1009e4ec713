"""The outbox: every message Hearth sends, recorded before SMTP starts, so none is lost or
sent twice.

The intent ("sending") is written before the first byte goes to the server. If Hearth stops
mid-send, `recover` finds the row still "sending" and marks it "unknown": the server may have
it, so it is never resent on its own. Only looking in the Sent folder (`reconcile`) or the
user's explicit confirmation moves it on.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast, get_args

from hearth import open_sqlite

__all__ = ["IllegalTransition", "Outbox", "OutboxEntry", "OutboxState"]

OutboxState = Literal["queued", "sending", "sent", "filed", "unknown", "failed", "discarded"]

# Moves any code may make. Leaving "queued", "failed" or "unknown" for "sending" needs the
# user's confirmation; "unknown" becomes "sent"/"filed" only through `reconcile`.
_ALLOWED: dict[str, frozenset[str]] = {
    "queued": frozenset({"sending", "discarded"}),
    "sending": frozenset({"sent", "unknown", "failed", "queued"}),
    "sent": frozenset({"filed"}),
    "filed": frozenset(),
    "unknown": frozenset({"sending", "discarded"}),
    "failed": frozenset({"sending", "queued", "discarded"}),
    "discarded": frozenset(),
}
_NEEDS_CONFIRMATION = frozenset({"queued", "failed", "unknown"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id TEXT PRIMARY KEY,
    raw BLOB NOT NULL,
    sender TEXT NOT NULL,
    recipients TEXT NOT NULL,
    created REAL NOT NULL,
    state TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    updated REAL NOT NULL
)
"""
_COLUMNS = "id, raw, sender, recipients, created, state, detail, updated"


class IllegalTransition(RuntimeError):
    """Our bug: code tried a move the outbox forbids (say sent → sending, a double send)."""


@dataclass(frozen=True)
class OutboxEntry:
    """One message in the outbox; `message_id` is its Message-ID header."""

    message_id: str
    raw: bytes
    sender: str
    recipients: tuple[str, ...]
    created: float
    state: OutboxState
    detail: str
    updated: float


class Outbox:
    """The outbox in SQLite at `path`; safe across threads, and across processes (WAL)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.Lock()
        # Durable: every state change must survive a power cut before SMTP goes on.
        self._conn = open_sqlite(path, durable=True)
        with self._lock:
            self._conn.execute(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add(
        self,
        message_id: str,
        raw: bytes,
        sender: str,
        recipients: Sequence[str],
        state: OutboxState = "sending",
    ) -> OutboxEntry:
        """Record a message; "sending" (the default) is the intent, written before SMTP."""
        if state not in ("sending", "queued"):
            raise IllegalTransition(f"a new outbox entry starts queued or sending, not {state}")
        now = self._clock()
        with self._lock:
            try:
                self._conn.execute(
                    f"INSERT INTO outbox ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, '', ?)",
                    (message_id, raw, sender, json.dumps(list(recipients)), now, state, now),
                )
            except sqlite3.IntegrityError as error:
                raise IllegalTransition(f"{message_id} is already in the outbox") from error
        return self._require(message_id)

    def mark(
        self,
        message_id: str,
        state: OutboxState,
        detail: str = "",
        *,
        confirmed: bool = False,
    ) -> OutboxEntry:
        """Move an entry to `state`; `confirmed` says the user agreed to (re)send it now."""
        with self._lock, self._transaction():
            current = self._state(message_id)
            if state not in _ALLOWED[current]:
                raise IllegalTransition(f"{message_id}: {current} → {state} is not allowed")
            if state == "sending" and current in _NEEDS_CONFIRMATION and not confirmed:
                raise IllegalTransition(
                    f"{message_id}: {current} → sending needs the user's confirmation"
                )
            self._set(message_id, state, detail)
        return self._require(message_id)

    def reconcile(
        self, message_id: str, found: Literal["sent", "filed"], detail: str = ""
    ) -> OutboxEntry:
        """An "unknown" message was found after all (in Sent, or by the user): it went out."""
        with self._lock, self._transaction():
            current = self._state(message_id)
            if current != "unknown":
                raise IllegalTransition(
                    f"{message_id}: only unknown can be reconciled, not {current}"
                )
            self._set(message_id, found, detail)
        return self._require(message_id)

    def recover(self) -> list[OutboxEntry]:
        """At start: each entry left "sending" by a crash becomes "unknown" (never resent)."""
        with self._lock, self._transaction():
            ids = [
                row[0]
                for row in self._conn.execute("SELECT id FROM outbox WHERE state = 'sending'")
            ]
            for message_id in ids:
                self._set(
                    message_id,
                    "unknown",
                    "Hearth stopped while sending this; the server may or may not have it.",
                )
        return [self._require(message_id) for message_id in ids]

    def get(self, message_id: str) -> OutboxEntry | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM outbox WHERE id = ?", (message_id,)
            ).fetchone()
        return _entry(row) if row else None

    def entries(self, states: Iterable[OutboxState] | None = None) -> list[OutboxEntry]:
        """The entries (in `states`, if given), oldest first."""
        query = f"SELECT {_COLUMNS} FROM outbox"
        wanted = list(states) if states is not None else None
        if wanted is not None:
            query += f" WHERE state IN ({', '.join('?' * len(wanted))})"
        with self._lock:
            rows = self._conn.execute(query + " ORDER BY created, id", wanted or ()).fetchall()
        return [_entry(row) for row in rows]

    def _require(self, message_id: str) -> OutboxEntry:
        entry = self.get(message_id)
        if entry is None:
            raise KeyError(message_id)
        return entry

    def _state(self, message_id: str) -> str:
        row = self._conn.execute("SELECT state FROM outbox WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(f"{message_id} is not in the outbox")
        return str(row[0])

    def _set(self, message_id: str, state: str, detail: str) -> None:
        self._conn.execute(
            "UPDATE outbox SET state = ?, detail = ?, updated = ? WHERE id = ?",
            (state, detail, self._clock(), message_id),
        )

    def _transaction(self) -> _Immediate:
        return _Immediate(self._conn)


class _Immediate:
    """BEGIN IMMEDIATE … COMMIT: the check and the move happen as one, across processes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._conn.execute("COMMIT" if kind is None else "ROLLBACK")


def _entry(row: tuple[object, ...]) -> OutboxEntry:
    message_id, raw, sender, recipients, created, state, detail, updated = row
    if state not in get_args(OutboxState):
        raise ValueError(f"outbox row {message_id} has an unknown state {state!r}")
    return OutboxEntry(
        message_id=str(message_id),
        raw=bytes(cast(bytes, raw)),
        sender=str(sender),
        recipients=tuple(json.loads(str(recipients))),
        created=float(cast(float, created)),
        state=cast(OutboxState, state),
        detail=str(detail),
        updated=float(cast(float, updated)),
    )
