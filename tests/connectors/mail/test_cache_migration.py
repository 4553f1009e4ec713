"""A cache written by an older Hearth is brought up to the current schema in place: nothing it
held is lost, and nothing it cannot vouch for is answered from it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hearth.connectors.evaluation.servers.dovecot import DovecotServer, message
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.cache_schema import SCHEMA_VERSION
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.objects import Address, ParsedBody
from hearth.connectors.mail.search_query import MailQuery
from tests.connectors.mail.kit import run

# The schema of version 2 as that Hearth wrote it (connectors/mail/cache_rows.py then);
# version 1 lacked folders.seen_state.
V2_SCHEMA = (
    "CREATE TABLE folders (name TEXT PRIMARY KEY, uidvalidity INTEGER NOT NULL,"
    " special_use TEXT, highest_uid INTEGER NOT NULL DEFAULT 0, seen_state TEXT)",
    "CREATE TABLE messages (id INTEGER PRIMARY KEY, folder TEXT NOT NULL, uid INTEGER NOT NULL,"
    " message_id TEXT NOT NULL, subject TEXT NOT NULL, sender_name TEXT, sender_email TEXT,"
    " reply_to TEXT NOT NULL, to_addresses TEXT NOT NULL, cc_addresses TEXT NOT NULL,"
    " date TEXT, sort_time REAL NOT NULL, flags TEXT NOT NULL, size INTEGER NOT NULL,"
    " in_reply_to TEXT NOT NULL, refs TEXT NOT NULL, UNIQUE (folder, uid))",
    "CREATE INDEX messages_by_time ON messages (folder, sort_time)",
    "CREATE TABLE bodies (folder TEXT NOT NULL, uid INTEGER NOT NULL, text TEXT NOT NULL,"
    " attachments TEXT NOT NULL, concerns TEXT NOT NULL, hidden_chars INTEGER NOT NULL,"
    " PRIMARY KEY (folder, uid))",
    "CREATE VIRTUAL TABLE search_index USING fts5(subject, sender, recipients, body,"
    " tokenize = 'unicode61 remove_diacritics 2')",
)
V1_FOLDERS = (
    "CREATE TABLE folders (name TEXT PRIMARY KEY, uidvalidity INTEGER NOT NULL,"
    " special_use TEXT, highest_uid INTEGER NOT NULL DEFAULT 0)"
)


def old_cache(
    path: Path, version: int, uidvalidity: int = 7, uids: tuple[int, ...] = (1, 2)
) -> None:
    """A cache as Hearth wrote it at `version`: INBOX and Sent, a body read, an index."""
    with sqlite3.connect(path) as old:
        for statement in V2_SCHEMA:
            if version == 1 and statement.startswith("CREATE TABLE folders"):
                statement = V1_FOLDERS
            old.execute(statement)
        folders = [("INBOX", uidvalidity, None, max(uids)), ("Sent", 3, "\\Sent", 1)]
        old.executemany(
            "INSERT INTO folders (name, uidvalidity, special_use, highest_uid) VALUES (?,?,?,?)",
            folders,
        )
        rows = [("INBOX", uid, f"Invoice {uid}", "[]") for uid in uids]
        rows.append(("Sent", 1, "Minutes", json.dumps([["Xavier", "xavier@example.com"]])))
        for row_id, (folder, uid, subject, to) in enumerate(rows, start=1):
            old.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?, ?, 'Bob', 'bob@example.com', '[]', ?,"
                " '[]', '2026-11-01T09:00:00+00:00', 1793523600.0, '[\"\\\\Seen\"]', 120, '', '')",
                (row_id, folder, uid, f"<{folder}{uid}@example.com>", subject, to),
            )
            old.execute(
                "INSERT INTO search_index (rowid, subject, sender, recipients, body)"
                " VALUES (?, ?, 'Bob <bob@example.com>', '', 'rendered text')",
                (row_id, subject),
            )
        old.execute(
            "INSERT INTO bodies VALUES ('INBOX', ?, 'rendered text', '[]', '[]', 0)", (uids[0],)
        )
        old.execute(f"PRAGMA user_version = {version}")


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_cache_keeps_everything_and_answers_nothing_unvouched(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / "cache.sqlite"
    old_cache(path, version)
    cache = MailCache(path)
    assert cache.folder_state("INBOX") == (7, 2)
    assert cache.uids("INBOX") == {1, 2} and cache.uids("Sent") == {1}
    envelope = cache.envelope("INBOX", 1)
    assert envelope is not None and envelope.subject == "Invoice 1"
    assert envelope.sender == Address("Bob", "bob@example.com") and not envelope.unread
    assert cache.body("INBOX", 1) == ParsedBody("rendered text")
    assert cache.known_addresses() == {"xavier@example.com"}
    # The old index held rendered text, not what SEARCH compares: none of it is trusted.
    for query in (MailQuery.of("invoice"), MailQuery.of("rendered"), MailQuery.of()):
        assert cache.search(query, "INBOX") == []
        assert cache.coverage("INBOX", query) is None  # no sync to the end recorded
    assert cache.pending("INBOX") == ([1, 2], {})
    cache.close()
    with sqlite3.connect(path) as reopened:
        assert reopened.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    MailCache(path).close()  # opening it again changes nothing


def test_a_migration_that_fails_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    old_cache(path, 2)
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE search_text (x)")  # the new index's name, taken
    with pytest.raises(sqlite3.OperationalError):
        MailCache(path)
    with sqlite3.connect(path) as kept:
        assert kept.execute("PRAGMA user_version").fetchone() == (2,)
        columns = [row[1] for row in kept.execute("PRAGMA table_info(messages)")]
        assert "indexed" not in columns
        assert kept.execute("SELECT count(*) FROM search_index").fetchone() == (3,)


@pytest.mark.server
def test_a_migrated_cache_is_indexed_by_the_next_sync(
    dovecot: DovecotServer, account: MailAccount, tmp_path: Path
) -> None:
    first = dovecot.append("INBOX", message("Invoice March", "Please pay by Friday."))
    second = dovecot.append("INBOX", message("Lunch", "Noodles?"))
    path = account.cache.path
    account.cache.close()
    path.unlink()
    old_cache(path, 2, dovecot.uidvalidity("INBOX"), (first, second))
    account.cache = MailCache(path)
    connector = MailConnector(account)

    found = run(connector, "mail.search", words="friday", folder="INBOX")
    assert [m.id for m in found.messages] == [f"INBOX/{first}"]
    assert found.source == "server"  # not synced since the upgrade: the server answers

    account.sync(["INBOX"])
    assert account.cache.pending("INBOX") == ([], {})
    found = run(connector, "mail.search", words="friday", folder="INBOX")
    assert [m.id for m in found.messages] == [f"INBOX/{first}"]
    assert found.source == "cache"
    assert [m.subject for m in run(connector, "mail.search", words="noodles").messages] == ["Lunch"]
