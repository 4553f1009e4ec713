"""The mail cache: headers of every synced message and the bodies read, searchable offline.

One SQLite file (WAL) behind one connection guarded by a lock, so any thread may use it. It
only mirrors the server and can always be rebuilt by a sync: a file written by another schema
version is emptied and made anew. An FTS5 index covers subject, sender, recipients and the
text of the bodies read; the user's words reach it only as quoted FTS strings.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from hearth import open_sqlite
from hearth.connectors.mail.cache_rows import (
    ENVELOPE_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    TABLES,
    addresses_from_json,
    addresses_json,
    body_row,
    envelope_from_row,
    fts_query,
    parsed_body,
    timestamp,
)
from hearth.connectors.mail.objects import Envelope, ParsedBody


class MailCache:
    """The cache file at `path`; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # Not durable: it mirrors the server, and the next sync brings back what a power cut lost.
        self._conn = open_sqlite(path, durable=False, isolation_level="DEFERRED")
        self._prepare()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _prepare(self) -> None:
        with self._lock, self._conn:
            (version,) = self._conn.execute("PRAGMA user_version").fetchone()
            if version == SCHEMA_VERSION:
                return
            # Another version's file only mirrored the server: start over rather than migrate.
            for table in TABLES:
                self._conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in SCHEMA:
                self._conn.execute(statement)
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

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

    def same_state(self, folder: str, state: object) -> bool:
        """Whether the folder was last synced at exactly this EXAMINE answer (`repr`)."""
        rows = self._read("SELECT seen_state FROM folders WHERE name = ?", (folder,))
        return bool(rows) and rows[0][0] == repr(state)

    def remember_state(self, folder: str, state: object) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE folders SET seen_state = ? WHERE name = ?", (repr(state), folder)
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
        with self._lock, self._conn:
            for envelope in envelopes:
                self._putenvelope_from_row(envelope)

    def _putenvelope_from_row(self, envelope: Envelope) -> None:
        sender = envelope.sender
        (message_row,) = self._conn.execute(
            "INSERT INTO messages (folder, uid, message_id, subject, sender_name, sender_email,"
            " reply_to, to_addresses, cc_addresses, date, sort_time, flags, size, in_reply_to,"
            " refs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (folder, uid) DO UPDATE SET message_id = excluded.message_id,"
            " subject = excluded.subject, sender_name = excluded.sender_name,"
            " sender_email = excluded.sender_email, reply_to = excluded.reply_to,"
            " to_addresses = excluded.to_addresses, cc_addresses = excluded.cc_addresses,"
            " date = excluded.date, sort_time = excluded.sort_time, flags = excluded.flags,"
            " size = excluded.size, in_reply_to = excluded.in_reply_to, refs = excluded.refs"
            " RETURNING id",
            (
                envelope.folder,
                envelope.uid,
                envelope.message_id,
                envelope.subject,
                sender.name if sender else None,
                sender.email if sender else None,
                addresses_json(envelope.reply_to),
                addresses_json(envelope.to),
                addresses_json(envelope.cc),
                envelope.date.isoformat() if envelope.date else None,
                timestamp(envelope.date) if envelope.date else 0.0,
                json.dumps(list(envelope.flags)),
                envelope.size,
                envelope.in_reply_to,
                envelope.references,
            ),
        ).fetchone()
        body = self._conn.execute(
            "SELECT text FROM bodies WHERE folder = ? AND uid = ?", (envelope.folder, envelope.uid)
        ).fetchone()
        recipients = " ".join(str(address) for address in envelope.to + envelope.cc)
        self._conn.execute("DELETE FROM search_index WHERE rowid = ?", (message_row,))
        self._conn.execute(
            "INSERT INTO search_index (rowid, subject, sender, recipients, body)"
            " VALUES (?, ?, ?, ?, ?)",
            (message_row, envelope.subject, str(sender or ""), recipients, body[0] if body else ""),
        )
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
            f"DELETE FROM search_index WHERE rowid IN (SELECT id FROM messages WHERE {where})",
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

    def search(self, words: str, *, folder: str | None = None, limit: int = 50) -> list[Envelope]:
        """Messages whose subject, people or read text hold every word (as a prefix), best first."""
        query = fts_query(words)
        if not query:
            return []
        where, params = "search_index MATCH ?", [query]
        if folder is not None:
            where += " AND m.folder = ?"
            params.append(folder)
        rows = self._read(
            f"SELECT {', '.join('m.' + c.strip() for c in ENVELOPE_COLUMNS.split(','))}"
            f" FROM search_index JOIN messages m ON m.id = search_index.rowid WHERE {where}"
            " ORDER BY rank, m.sort_time DESC LIMIT ?",
            [*params, limit],
        )
        return [envelope_from_row(row) for row in rows]

    # Bodies

    def put_body(self, folder: str, uid: int, body: ParsedBody) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO bodies (folder, uid, text, attachments, concerns,"
                " hidden_chars) VALUES (?, ?, ?, ?, ?, ?)",
                (folder, uid, *body_row(body)),
            )
            self._conn.execute(
                "UPDATE search_index SET body = ? WHERE rowid ="
                " (SELECT id FROM messages WHERE folder = ? AND uid = ?)",
                (body.text, folder, uid),
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
