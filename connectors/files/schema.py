"""The file index's tables, their version, and bringing an index of an older version up to date."""

from __future__ import annotations

import sqlite3

from hearth.connectors.files.excerpts import TOKENIZER

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS files ("
    " id INTEGER PRIMARY KEY,"
    " path TEXT NOT NULL UNIQUE,"
    " name TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " size INTEGER NOT NULL,"
    " mtime REAL NOT NULL,"
    " skipped TEXT)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS files_fts USING fts5("
    f" name, body, tokenize = '{TOKENIZER}', prefix = '2 3')",
)
# 3: words are stemmed. A version 2 index keeps its entries and has its text tokenized again.
SCHEMA_VERSION = 3
_UNSTEMMED_VERSION = 2


def prepare(conn: sqlite3.Connection) -> None:
    """Create the tables, or bring them to this version; call inside a transaction block."""
    # Immediate, so two processes opening an old index do not both change it.
    conn.execute("BEGIN IMMEDIATE")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == _UNSTEMMED_VERSION:
        _stem_words(conn)
    elif version != SCHEMA_VERSION:
        # An index from another version is a cache like any other: rebuilt by rescans.
        conn.execute("DROP TABLE IF EXISTS files_fts")
        conn.execute("DROP TABLE IF EXISTS files")
    for statement in SCHEMA:
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _stem_words(conn: sqlite3.Connection) -> None:
    """Tokenize a version 2 index's names and text again, stemmed; its entries stay."""
    conn.execute("ALTER TABLE files_fts RENAME TO files_fts_unstemmed")
    conn.execute(SCHEMA[1])
    conn.execute(
        "INSERT INTO files_fts (rowid, name, body)"
        " SELECT rowid, name, body FROM files_fts_unstemmed"
    )
    conn.execute("DROP TABLE files_fts_unstemmed")
