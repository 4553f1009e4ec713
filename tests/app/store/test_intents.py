from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hearth.store import Database, IntentLog, NotFound, StoreError, open_database


@pytest.fixture
def intents(db: Database) -> IntentLog:
    return IntentLog(db)


def test_an_intent_moves_to_executed_or_failed(intents: IntentLog) -> None:
    sent = intents.intend("call_1", "send_mail", {"to": "ana@example.org"})
    refused = intents.intend("call_2", "send_mail", {"to": "bo@example.org"})
    intents.executed(sent, "<m1@hearth>")
    intents.failed(refused, "SMTP 550")
    assert (intents.get(sent).state, intents.get(sent).detail) == ("executed", "<m1@hearth>")
    assert intents.get(refused).state == "failed"
    assert intents.get(sent).arguments == {"to": "ana@example.org"}
    assert intents.reconcile() == []


def test_reconcile_marks_intended_unknown_and_returns_every_unknown(intents: IntentLog) -> None:
    first = intents.intend("call_1", "set_volume", {"level": 30})
    done = intents.intend("call_2", "set_volume", {"level": 40})
    intents.executed(done)
    (unknown,) = intents.reconcile()
    assert (unknown.id, unknown.state, unknown.tool) == (first, "unknown", "set_volume")
    second = intents.intend("call_3", "send_mail", {})
    assert [i.id for i in intents.reconcile()] == [first, second]  # still asked about, not retried
    assert [i.id for i in intents.unknown()] == [first, second]


def test_resolve_settles_an_unknown_intent(intents: IntentLog) -> None:
    intent = intents.intend("call_1", "send_mail", {})
    intents.reconcile()
    intents.resolve(intent, "executed", "found in Sent by Message-ID")
    assert intents.get(intent).state == "executed"
    assert intents.reconcile() == []


def test_illegal_moves_are_refused(intents: IntentLog) -> None:
    intent = intents.intend("call_1", "send_mail", {})
    with pytest.raises(StoreError, match="is intended; it cannot become executed"):
        intents.resolve(intent, "executed")
    intents.executed(intent)
    with pytest.raises(StoreError, match="is executed; it cannot become failed"):
        intents.failed(intent)
    with pytest.raises(StoreError, match="executed or failed"):
        intents.resolve(intent, "unknown")  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        intents.executed(12345)


def test_an_intent_left_by_an_exited_process_reconciles_to_unknown(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    script = (
        "import sys; from pathlib import Path; from hearth.store import IntentLog, open_database;"
        "print(IntentLog(open_database(Path(sys.argv[1]))).intend('c', 'send_mail', {}))"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open_database(path) as db:
        (intent,) = IntentLog(db).reconcile()
    assert (intent.id, intent.state) == (int(done.stdout), "unknown")


def test_a_batch_that_stopped_half_way_is_partial(intents: IntentLog) -> None:
    intent = intents.intend("call_1", "files.move", {"sources": ["a", "b"]})
    intents.partial(intent, "moved a; b failed")
    assert (intents.get(intent).state, intents.get(intent).detail) == (
        "partial",
        "moved a; b failed",
    )
    assert intents.reconcile() == []
    with pytest.raises(StoreError, match="is partial; it cannot become executed"):
        intents.executed(intent)


def test_the_partial_migration_keeps_every_intent(tmp_path: Path) -> None:
    from hearth.store.intents import MIGRATIONS

    path = tmp_path / "hearth.db"
    with open_database(path) as old:  # the schema as the previous Hearth left it
        old.migrate("intents", MIGRATIONS[:1])
        with old.transaction() as conn:
            for n, state in enumerate(["intended", "executed", "failed", "unknown"]):
                conn.execute(
                    "INSERT INTO intents (call_id, tool, arguments, state, created_at, updated_at,"
                    " detail) VALUES (?, 'send_mail', '{\"to\": \"a@b\"}', ?, ?, ?, ?)",
                    (
                        f"call_{n}",
                        state,
                        f"2026-01-0{n + 1}T00:00:00+00:00",
                        f"2026-02-0{n + 1}T00:00:00+00:00",
                        f"detail {n}",
                    ),
                )
        before = [tuple(row) for row in old.query("SELECT * FROM intents ORDER BY id")]
    with open_database(path) as db:
        intents = IntentLog(db)
        assert db.schema_version("intents") == len(MIGRATIONS) == 3
        rows = db.query("SELECT * FROM intents ORDER BY id")
        assert [tuple(row) for row in rows] == [(*row, None) for row in before]  # no owner
        index = db.query(
            "SELECT name FROM sqlite_schema WHERE tbl_name = 'intents' AND type = 'index'"
        )
        assert [row["name"] for row in index] == ["intents_by_state"]
        added = intents.intend("call_9", "files.move", {})
        assert added == len(before) + 1
        intents.partial(added)
        assert [i.call_id for i in intents.reconcile()] == ["call_0", "call_3"]
        assert db.integrity_check() == ["ok"]
