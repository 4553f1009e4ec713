"""The mail cache's tables, and bringing a file of an older schema up to this one in place.

Version 3 added what lets a search be answered from the cache alone: the day of each message's
INTERNALDATE, a search index of the text IMAP SEARCH compares (trigrams, so any substring is
found), how far each message is indexed, and up to which UIDNEXT, and when, each folder was
last synced to the end. A file of version 1 or 2 keeps its folders, envelopes and bodies; its
messages start unindexed (what the old index held was other text) and its folders unsynced,
so nothing is answered from them until a sync has indexed them; until then the server is
asked. A file of any other version only mirrored the server: it is emptied and made anew.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 3
TABLES = ("folders", "messages", "bodies", "search_index", "search_text")
# messages.indexed: how much of a message the search index holds.
NOT_INDEXED, HEADERS_INDEXED, BODY_INDEXED, BODY_ON_SERVER = 0, 1, 2, 3

_SEARCH_TEXT = (
    # rowid = messages.id. Trigrams of the folded text: a phrase of three characters or more
    # matches exactly where the text holds it, so a substring search needs no second look.
    "CREATE VIRTUAL TABLE search_text USING fts5(sender, recipients, subject, body,"
    " tokenize = 'trigram case_sensitive 1')"
)
_BY_INDEXED = "CREATE INDEX messages_by_indexed ON messages (folder, indexed)"
SCHEMA = (
    "CREATE TABLE folders (name TEXT PRIMARY KEY, uidvalidity INTEGER NOT NULL,"
    " special_use TEXT, highest_uid INTEGER NOT NULL DEFAULT 0, seen_state TEXT,"
    " synced_uidnext INTEGER, synced_at REAL)",
    "CREATE TABLE messages (id INTEGER PRIMARY KEY, folder TEXT NOT NULL, uid INTEGER NOT NULL,"
    " message_id TEXT NOT NULL, subject TEXT NOT NULL, sender_name TEXT, sender_email TEXT,"
    " reply_to TEXT NOT NULL, to_addresses TEXT NOT NULL, cc_addresses TEXT NOT NULL,"
    " date TEXT, sort_time REAL NOT NULL, flags TEXT NOT NULL, size INTEGER NOT NULL,"
    " in_reply_to TEXT NOT NULL, refs TEXT NOT NULL, received_day TEXT,"
    " indexed INTEGER NOT NULL DEFAULT 0, UNIQUE (folder, uid))",
    "CREATE INDEX messages_by_time ON messages (folder, sort_time)",
    _BY_INDEXED,
    "CREATE TABLE bodies (folder TEXT NOT NULL, uid INTEGER NOT NULL, text TEXT NOT NULL,"
    " attachments TEXT NOT NULL, concerns TEXT NOT NULL, hidden_chars INTEGER NOT NULL,"
    " PRIMARY KEY (folder, uid))",
    _SEARCH_TEXT,
)
_MIGRATIONS = {
    1: ("ALTER TABLE folders ADD COLUMN seen_state TEXT",),
    2: (
        "ALTER TABLE folders ADD COLUMN synced_uidnext INTEGER",
        "ALTER TABLE folders ADD COLUMN synced_at REAL",
        "ALTER TABLE messages ADD COLUMN received_day TEXT",
        "ALTER TABLE messages ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0",
        _BY_INDEXED,
        "DROP TABLE search_index",
        _SEARCH_TEXT,
    ),
}


def prepare(conn: sqlite3.Connection) -> None:
    """Make the file's tables those of SCHEMA_VERSION, in one transaction."""
    if _version(conn) == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Read again under the write lock: another process may have just done it.
        version = _version(conn)
        if version in _MIGRATIONS:
            for step in range(version, SCHEMA_VERSION):
                for statement in _MIGRATIONS[step]:
                    conn.execute(statement)
        elif version != SCHEMA_VERSION:
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in SCHEMA:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


def _version(conn: sqlite3.Connection) -> int:
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    return int(version)
