"""The cache's search index: what it holds of each message, what a search finds in it, and how
much of a folder it can answer for.

Every statement here runs on the cache's connection under its lock (`MailCache`). The user's
words reach SQLite only as bound parameters: inside an FTS5 phrase, its quotes doubled.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hearth.connectors.mail.cache_schema import (
    BODY_INDEXED,
    BODY_ON_SERVER,
    HEADERS_INDEXED,
    NOT_INDEXED,
)
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.search_text import SearchHeaders, fold

# A trigram index finds no string shorter than a trigram; those are looked for by scanning.
_TRIGRAM = 3
_COLUMNS: tuple[str, ...] = ("sender", "recipients", "subject", "body")
_HEADERS_KNOWN = (HEADERS_INDEXED, BODY_INDEXED, BODY_ON_SERVER)
_UNDECIDED = (NOT_INDEXED, HEADERS_INDEXED, BODY_ON_SERVER)  # for a search of the body


@dataclass(frozen=True)
class Coverage:
    """How far the cache can answer a search in one folder: every UID below `uidnext` as of
    the sync at `synced_at` (seconds since the epoch), but for the `unknown` ones."""

    uidvalidity: int
    uidnext: int
    synced_at: float
    unknown: tuple[int, ...]


def put_headers(conn: sqlite3.Connection, row: int, headers: SearchHeaders) -> None:
    """Index a message's headers and day; a body already indexed stays."""
    values = (headers.sender, headers.recipients, headers.subject)
    changed = conn.execute(
        "UPDATE search_text SET sender = ?, recipients = ?, subject = ? WHERE rowid = ?",
        (*values, row),
    ).rowcount
    if not changed:
        conn.execute(
            "INSERT INTO search_text (rowid, sender, recipients, subject, body)"
            " VALUES (?, ?, ?, ?, '')",
            (row, *values),
        )
    conn.execute(
        "UPDATE messages SET received_day = ?, indexed = max(indexed, ?) WHERE id = ?",
        (headers.received_day, HEADERS_INDEXED, row),
    )


def put_body(conn: sqlite3.Connection, folder: str, uid: int, text: str | None) -> None:
    """Index a message's body text (folded), or mark it as one only the server can search."""
    found = conn.execute(
        "SELECT id FROM messages WHERE folder = ? AND uid = ? AND indexed != ?",
        (folder, uid, NOT_INDEXED),
    ).fetchone()
    if found is None:
        return  # its headers are not indexed yet; the next sync does both
    if text is not None:
        conn.execute("UPDATE search_text SET body = ? WHERE rowid = ?", (text, found[0]))
    state = BODY_ON_SERVER if text is None else BODY_INDEXED
    conn.execute("UPDATE messages SET indexed = ? WHERE id = ?", (state, found[0]))


def pending(conn: sqlite3.Connection, folder: str) -> tuple[list[int], dict[int, int]]:
    """UIDs whose headers are not indexed, and the sizes by UID of those whose body is not."""
    rows = conn.execute(
        "SELECT uid, indexed, size FROM messages INDEXED BY messages_by_indexed"
        " WHERE folder = ? AND indexed IN (?, ?)",
        (folder, NOT_INDEXED, HEADERS_INDEXED),
    ).fetchall()
    headers = [int(uid) for uid, indexed, _ in rows if indexed == NOT_INDEXED]
    bodies = {int(uid): int(size) for uid, indexed, size in rows if indexed == HEADERS_INDEXED}
    return headers, bodies


def coverage(conn: sqlite3.Connection, folder: str, query: MailQuery) -> Coverage | None:
    """None when the folder was never synced to the end under its UIDVALIDITY."""
    found = conn.execute(
        "SELECT uidvalidity, synced_uidnext, synced_at FROM folders WHERE name = ?", (folder,)
    ).fetchone()
    if found is None or found[1] is None:
        return None
    uidvalidity, uidnext, synced_at = found
    undecided = _UNDECIDED if query.needs_body else (NOT_INDEXED,)
    unknown = conn.execute(
        # By this index: the planner would walk every UID of the folder to keep them in order.
        "SELECT uid FROM messages INDEXED BY messages_by_indexed"
        f" WHERE folder = ? AND indexed IN ({_marks(undecided)}) AND uid < ? ORDER BY uid",
        (folder, *undecided, uidnext),
    ).fetchall()
    return Coverage(int(uidvalidity), int(uidnext), float(synced_at), tuple(u for (u,) in unknown))


def matching_rows(
    conn: sqlite3.Connection,
    columns: str,
    folder: str,
    query: MailQuery,
    *,
    below: int | None,
    limit: int,
) -> list[sqlite3.Row]:
    """`columns` of the folder's messages that match and whose index can decide it, newest
    first; only UIDs below `below` when given."""
    decided = (BODY_INDEXED,) if query.needs_body else _HEADERS_KNOWN
    where = ["m.folder = ?", f"m.indexed IN ({_marks(decided)})"]
    params: list[object] = [folder, *decided]
    if below is not None:
        where.append("m.uid < ?")
        params.append(below)
    if query.since is not None:
        where.append("m.received_day >= ?")
        params.append(query.since.isoformat())
    if query.unread:
        where.append("NOT EXISTS (SELECT 1 FROM json_each(m.flags) WHERE value = '\\Seen')")
    text_where, text_params = _text_conditions(query)
    source = "messages m"
    if text_where and text_where[0].endswith("MATCH ?"):  # the index finds the few that match
        source = "search_text s JOIN messages m ON m.id = s.rowid"
    elif text_where:  # only keys to scan for: newest first, until enough are found
        source = "messages m CROSS JOIN search_text s ON s.rowid = m.id"
    where += text_where
    params += text_params
    return conn.execute(
        f"SELECT {columns} FROM {source} WHERE {' AND '.join(where)}"
        " ORDER BY m.sort_time DESC, m.uid DESC LIMIT ?",
        [*params, limit],
    ).fetchall()


def _text_conditions(query: MailQuery) -> tuple[list[str], list[object]]:
    """Conditions on the index `s`: one MATCH for the keys a trigram can find, and a scan
    (instr) for the shorter ones; each key must be in one of its columns."""
    phrases: list[str] = []
    scans: list[str] = []
    params: list[object] = []
    keys: list[tuple[str, tuple[str, ...]]] = [(fold(word), _COLUMNS) for word in query.words]
    keys += [(fold(word), ("sender",)) for word in query.sender]
    for key, columns in keys:
        if len(key) >= _TRIGRAM:
            phrase = '"' + key.replace('"', '""') + '"'
            phrases.append(phrase if len(columns) > 1 else f"{columns[0]} : {phrase}")
        else:
            scans.append("(" + " OR ".join(f"instr(s.{c}, ?) > 0" for c in columns) + ")")
            params += [key] * len(columns)
    if phrases:
        scans.insert(0, "s.search_text MATCH ?")
        params.insert(0, " AND ".join(phrases))
    return scans, params


def _marks(values: tuple[int, ...]) -> str:
    return ", ".join("?" * len(values))
