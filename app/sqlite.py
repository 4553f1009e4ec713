"""The one way Hearth opens SQLite: WAL, one busy timeout, foreign keys, durability per store.

A store whose file holds what exists nowhere else (the user's conversations, audit log and
consent rules, a message on its way out, what an edit replaced) opens `durable=True`:
`synchronous=FULL`, so a commit survives a power cut, not only a crash. A store that mirrors a
server or the disk opens `durable=False`: `synchronous=NORMAL`, where a power cut may lose the
last commits but never damages the file, and the next sync or scan brings them back. Each
caller says which, with its reason, in one line beside the call.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

# In WAL only a writer waits, for another writer; Hearth's longest writes (a sync, a batch of
# indexed files) take seconds on a slow disk. No store is used on the UI thread, so waiting
# costs little, while giving up loses the write: an audit row, an outbox intent, an edit.
BUSY_TIMEOUT_S = 30.0


def open_sqlite(
    path: Path | str,
    *,
    durable: bool,
    isolation_level: Literal["DEFERRED", "IMMEDIATE", "EXCLUSIVE"] | None = None,
) -> sqlite3.Connection:
    """A connection to `path` (made if absent) in WAL mode, or a file that is no database fails.

    `isolation_level` is sqlite3's: None leaves transactions to the caller's own BEGIN, while
    "DEFERRED" has `with conn:` blocks begin and commit them. Any thread may use the connection,
    since each store guards its own (a lock, or one connection per thread). Foreign keys are on:
    SQLite ignores declared ones by default, a trap rather than a choice.
    """
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=isolation_level, check_same_thread=False
    )
    try:
        # Setting the journal mode is the first read of the file, so a non-database fails here.
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn
