from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from hearth import paths
from hearth.messages import Message
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import (
    AuditLog,
    ConversationStore,
    Database,
    DatabaseCorrupt,
    IntentLog,
    RuleTable,
    StoreError,
    UndoLog,
    open_database,
)

V1 = [["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"]]
V2 = [*V1, ["ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0"]]


def test_default_file_lives_in_the_data_dir(hearth_home: Path) -> None:
    with open_database() as db:
        assert db.path == paths.data_dir() / "hearth.db"
        assert db.path.is_relative_to(hearth_home)
    assert (paths.data_dir() / "hearth.db").exists()


def test_connections_are_wal_full_sync_with_foreign_keys(db: Database) -> None:
    def pragma(name: str) -> object:
        return db.query(f"PRAGMA {name}")[0][0]

    assert pragma("journal_mode") == "wal"
    assert pragma("synchronous") == 2  # FULL
    assert pragma("foreign_keys") == 1
    assert int(str(pragma("busy_timeout"))) >= 1000


def test_migrations_run_forward_on_an_existing_database(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with open_database(path) as db:
        assert db.migrate("notes", V1) == 1
        with db.transaction() as conn:
            conn.execute("INSERT INTO notes (body) VALUES ('kept')")
    with open_database(path) as db:
        db.migrate("notes", V2)
        db.migrate("notes", V2)  # already there: nothing runs twice
        assert db.schema_version("notes") == 2
        assert [tuple(row) for row in db.query("SELECT body, pinned FROM notes")] == [("kept", 0)]


def test_a_failing_migration_step_leaves_nothing_behind(db: Database) -> None:
    db.migrate("notes", V1)
    broken = [*V1, ["CREATE TABLE extra (x)", "ALTER TABLE missing ADD COLUMN y"]]
    with pytest.raises(sqlite3.OperationalError):
        db.migrate("notes", broken)
    assert db.schema_version("notes") == 1
    assert not db.query("SELECT name FROM sqlite_schema WHERE name = 'extra'")


def test_a_database_from_a_newer_hearth_is_refused(db: Database) -> None:
    db.migrate("notes", V2)
    with pytest.raises(StoreError, match="newer Hearth"):
        db.migrate("notes", V1)


def test_every_store_reopens_an_existing_database_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    with open_database(path) as db:
        conversation = ConversationStore(db).create("kept")
        ConversationStore(db).append(conversation, Message.user("hello"))
        RuleTable(db).save_rule("r1", {"tool": "read_file"})
        UndoLog(db)
        IntentLog(db).intend("call_1", "send_mail", {"to": "a@example.org"})
        AuditLog(db).append(
            call_id="call_1",
            tool="t",
            arguments={},
            ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once."),
            outcome="proposed",
        )
    with open_database(path) as db:
        assert ConversationStore(db).messages(conversation) == [Message.user("hello")]
        assert RuleTable(db).load_rules() == [{"tool": "read_file"}]
        assert [i.state for i in IntentLog(db).reconcile()] == ["unknown"]
        assert len(AuditLog(db).entries()) == 1
        versions = {"conversations": 2, "audit": 7, "intents": 3, "rules": 1, "undo": 3}
        assert {name: db.schema_version(name) for name in versions} == versions


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    before = path.read_bytes()
    with pytest.raises(DatabaseCorrupt) as caught:
        open_database(path)
    assert str(path) in str(caught.value) and "backup" in str(caught.value)
    assert isinstance(caught.value, StoreError) and caught.value.path == path
    assert path.read_bytes() == before


def test_a_damaged_page_raises_corrupt_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    with open_database(path) as db:
        store = ConversationStore(db)
        conversation = store.create("x")
        for n in range(300):
            store.append(conversation, Message.user(f"message {n} " + "x" * 200))
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 3 : page * 6] = b"\xff" * (page * 3)  # pages of the messages table's b-tree
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseCorrupt, match=str(path)):
        read_back(path, conversation)
    assert path.read_bytes() == bytes(data)


def read_back(path: Path, conversation: int) -> list[Message]:
    with open_database(path) as db:
        return ConversationStore(db).messages(conversation)


def test_two_threads_append_to_one_conversation(db: Database) -> None:
    store, log = ConversationStore(db), AuditLog(db)
    conversation = store.create("busy")
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def write(name: str) -> None:
        try:
            barrier.wait()
            for n in range(100):
                store.append(conversation, Message.user(f"{name} {n}"))
                log.append(
                    call_id=f"{name}-{n}",
                    tool="t",
                    arguments={},
                    ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once."),
                    outcome="proposed",
                )
                assert store.list()[0].id == conversation
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    contents = [m.content for m in store.messages(conversation)]
    assert len(contents) == 200
    for name in ("a", "b"):
        assert [c for c in contents if c.startswith(name)] == [f"{name} {n}" for n in range(100)]
    assert len(log.entries()) == 200


def test_a_failed_transaction_writes_nothing(db: Database) -> None:
    store = ConversationStore(db)
    with pytest.raises(RuntimeError), db.transaction() as conn:
        conn.execute(
            "INSERT INTO conversations (title, created_at, updated_at) VALUES ('x', '', '')"
        )
        raise RuntimeError("boom")
    assert store.list() == []


def test_a_closed_database_refuses_use_from_any_thread(tmp_path: Path) -> None:
    db = open_database(tmp_path / "hearth.db")
    db.close()
    with pytest.raises(StoreError, match="closed"):
        db.query("SELECT 1")
    worker_errors: list[BaseException] = []
    thread = threading.Thread(target=lambda: _capture(worker_errors, db))
    thread.start()
    thread.join()
    assert isinstance(worker_errors[0], StoreError)


def _capture(errors: list[BaseException], db: Database) -> None:
    try:
        db.query("SELECT 1")
    except BaseException as exc:
        errors.append(exc)


def test_integrity_check_passes_on_a_healthy_file(db: Database) -> None:
    ConversationStore(db).create("x")
    assert db.integrity_check() == ["ok"]
