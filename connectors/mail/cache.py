"""The mail cache: headers of every synced message, the bodies read, and a search index.

One SQLite file (WAL) behind one connection guarded by a lock, so any thread may use it. It
mirrors the server: a file of an older schema is brought up to this one in place
(`cache_schema`). The search index (`cache_index`) holds the text IMAP SEARCH compares, so a
search of a synced folder needs no server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from hearth import open_sqlite
from hearth.connectors.mail import cache_index
from hearth.connectors.mail.cache_index import Coverage
from hearth.connectors.mail.cache_rows import (
    ENVELOPE_COLUMNS,
    UPSERT_ENVELOPE,
    addresses_from_json,
    body_row,
    envelope_from_row,
    envelope_row,
    parsed_body,
    timestamp,
)
from hearth.connectors.mail.cache_schema import NOT_INDEXED, prepare
from hearth.connectors.mail.folders import FolderState
from hearth.connectors.mail.objects import Envelope, ParsedBody
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.search_text import SearchHeaders

_WAL_BYTES = 16_000_000
_M_COLUMNS = ", ".join(f"m.{column.strip()}" for column in ENVELOPE_COLUMNS.split(","))


class MailCache:
    """The cache file at `path`; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # Not durable: it mirrors the server, and the next sync brings back what a power cut lost.
        self._conn = open_sqlite(path, durable=False, isolation_level="DEFERRED")
        # A sync writes the index in batches of megabytes; the log need not stay that large.
        self._conn.execute(f"PRAGMA journal_size_limit = {_WAL_BYTES}")
        self._prepare()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _prepare(self) -> None:
        with self._lock:
            prepare(self._conn)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # Folders

    def folder_state(self, folder: str) -> tuple[int, int] | None:
        """(uidvalidity, highest UID synced) of a folder, None if it was never synced."""
        rows = self._read(
            "SELECT uidvalidity, max(highest_uid,"
            " coalesce((SELECT max(uid) FROM messages WHERE folder = ?), 0))"
            " FROM folders WHERE name = ?",
            (folder, folder),
        )
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    def reset_folder(
        self, folder: str, uidvalidity: int, *, special_use: str | None = None
    ) -> None:
        """Forget everything cached of `folder` and start it over under `uidvalidity`."""
        with self._lock, self._conn:
            self._delete(folder, None)
            self._conn.execute(
                "INSERT OR REPLACE INTO folders (name, uidvalidity, special_use) VALUES (?, ?, ?)",
                (folder, uidvalidity, special_use),
            )

    def same_state(self, folder: str, state: FolderState) -> bool:
        """Whether the folder was last synced at exactly this EXAMINE answer (`repr`)."""
        rows = self._read("SELECT seen_state FROM folders WHERE name = ?", (folder,))
        return bool(rows) and rows[0][0] == repr(state)

    def remember_state(self, folder: str, state: FolderState, *, synced_at: float) -> None:
        """The folder is synced to the end: every UID below `state.uidnext` is cached."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE folders SET seen_state = ?, synced_uidnext = ?, synced_at = ?"
                " WHERE name = ?",
                (repr(state), state.uidnext, synced_at, folder),
            )

    def set_special_use(self, folder: str, special_use: str | None) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE folders SET special_use = ? WHERE name = ?", (special_use, folder)
            )

    def forget_folder(self, folder: str) -> None:
        """Drop a folder the server no longer has, with all its messages."""
        with self._lock, self._conn:
            self._delete(folder, None)
            self._conn.execute("DELETE FROM folders WHERE name = ?", (folder,))

    def folders(self) -> list[str]:
        return [str(row[0]) for row in self._read("SELECT name FROM folders ORDER BY name")]

    # Envelopes

    def put_envelopes(self, envelopes: Iterable[Envelope]) -> None:
        """Store envelopes; a new one is not searchable until its headers are indexed."""
        self.put_listed((envelope, None) for envelope in envelopes)

    def put_listed(self, listed: Iterable[tuple[Envelope, SearchHeaders | None]]) -> None:
        """Store envelopes and index the headers given with them."""
        with self._lock, self._conn:
            for envelope, headers in listed:
                (row,) = self._conn.execute(UPSERT_ENVELOPE, envelope_row(envelope)).fetchone()
                if headers is not None:
                    cache_index.put_headers(self._conn, row, headers)
                self._conn.execute(
                    "UPDATE folders SET highest_uid = max(highest_uid, ?) WHERE name = ?",
                    (envelope.uid, envelope.folder),
                )

    def update_flags(self, folder: str, flags: Mapping[int, Sequence[str]]) -> None:
        with self._lock, self._conn:
            self._conn.executemany(
                "UPDATE messages SET flags = ? WHERE folder = ? AND uid = ?",
                [(json.dumps(list(value)), folder, uid) for uid, value in flags.items()],
            )

    def remove(self, folder: str, uids: Iterable[int]) -> None:
        with self._lock, self._conn:
            self._delete(folder, list(uids))

    def _delete(self, folder: str, uids: list[int] | None) -> None:
        """Delete messages of `folder` (all of them when `uids` is None), bodies and index too."""
        params: list[tuple[str] | tuple[str, int]]
        if uids is None:
            where, params = "folder = ?", [(folder,)]
        else:
            where, params = "folder = ? AND uid = ?", [(folder, uid) for uid in uids]
        self._conn.executemany(
            f"DELETE FROM search_text WHERE rowid IN (SELECT id FROM messages WHERE {where})",
            params,
        )
        self._conn.executemany(f"DELETE FROM messages WHERE {where}", params)
        self._conn.executemany(f"DELETE FROM bodies WHERE {where}", params)

    def uids(self, folder: str) -> set[int]:
        return {
            int(row[0])
            for row in self._read("SELECT uid FROM messages WHERE folder = ?", (folder,))
        }

    def flags(self, folder: str) -> dict[int, tuple[str, ...]]:
        """The cached flags of every message of `folder`, by UID."""
        rows = self._read("SELECT uid, flags FROM messages WHERE folder = ?", (folder,))
        return {int(uid): tuple(json.loads(flags)) for uid, flags in rows}

    def envelopes(
        self,
        folder: str,
        *,
        unread: bool = False,
        since: date | datetime | None = None,
        sender: str | None = None,
        limit: int = 50,
    ) -> list[Envelope]:
        """The folder's messages, newest first; `sender` matches part of a name or address."""
        conditions, params = ["folder = ?"], list[object]([folder])
        if unread:
            conditions.append("NOT EXISTS (SELECT 1 FROM json_each(flags) WHERE value = '\\Seen')")
        if since is not None:
            conditions.append("sort_time >= ?")
            params.append(timestamp(since))
        if sender:
            conditions.append(
                "(instr(lower(coalesce(sender_name, '')), lower(?)) > 0"
                " OR instr(lower(coalesce(sender_email, '')), lower(?)) > 0)"
            )
            params += [sender, sender]
        rows = self._read(
            f"SELECT {ENVELOPE_COLUMNS} FROM messages WHERE {' AND '.join(conditions)}"
            " ORDER BY sort_time DESC, uid DESC LIMIT ?",
            [*params, limit],
        )
        return [envelope_from_row(row) for row in rows]

    def envelope(self, folder: str, uid: int) -> Envelope | None:
        rows = self._read(
            f"SELECT {ENVELOPE_COLUMNS} FROM messages WHERE folder = ? AND uid = ?", (folder, uid)
        )
        return envelope_from_row(rows[0]) if rows else None

    # Search

    def search(
        self, query: MailQuery, folder: str, *, below: int | None = None, limit: int = 50
    ) -> list[Envelope]:
        """The folder's messages matching `query` that the index can decide, newest first;
        only UIDs below `below` when given (those a sync covered)."""
        if query.impossible:
            return []
        with self._lock:
            rows = cache_index.matching_rows(
                self._conn, _M_COLUMNS, folder, query, below=below, limit=limit
            )
        return [envelope_from_row(row) for row in rows]

    def coverage(self, folder: str, query: MailQuery) -> Coverage | None:
        """How far the cache answers `query` in `folder`; None if never synced to the end."""
        with self._lock:
            return cache_index.coverage(self._conn, folder, query)

    def pending(self, folder: str) -> tuple[list[int], dict[int, int]]:
        """UIDs whose headers are not indexed yet, and sizes by UID of those whose body is not."""
        with self._lock:
            return cache_index.pending(self._conn, folder)

    def put_body_texts(self, folder: str, texts: Mapping[int, str | None]) -> None:
        """Index the text BODY searches, by UID (`search_text.body_text`); None leaves a
        message's body to the server."""
        with self._lock, self._conn:
            for uid, text in texts.items():
                cache_index.put_body(self._conn, folder, uid, text)

    def searchable(self, folder: str, uid: int) -> bool:
        """Whether the message's headers are indexed (its body may not be yet)."""
        rows = self._read(
            "SELECT indexed FROM messages WHERE folder = ? AND uid = ?", (folder, uid)
        )
        return bool(rows) and rows[0][0] != NOT_INDEXED

    # Bodies

    def put_body(self, folder: str, uid: int, body: ParsedBody) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO bodies (folder, uid, text, attachments, concerns,"
                " hidden_chars) VALUES (?, ?, ?, ?, ?, ?)",
                (folder, uid, *body_row(body)),
            )

    def body(self, folder: str, uid: int) -> ParsedBody | None:
        rows = self._read(
            "SELECT text, attachments, concerns, hidden_chars FROM bodies"
            " WHERE folder = ? AND uid = ?",
            (folder, uid),
        )
        return parsed_body(rows[0]) if rows else None

    def known_addresses(self) -> set[str]:
        """Every address the user has written to (To and Cc of Sent), lower-cased: contacts."""
        rows = self._read(
            "SELECT m.to_addresses, m.cc_addresses FROM messages m"
            " JOIN folders f ON f.name = m.folder WHERE f.special_use = '\\Sent'"
        )
        return {
            address.email.lower()
            for row in rows
            for column in row
            for address in addresses_from_json(column)
        }
