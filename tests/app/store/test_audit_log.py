from __future__ import annotations

import csv
import io
import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, Database, StoreError, Taint, open_database
from hearth.store.audit import SUMMARY_LIMIT
from hearth.store.audit_entry import FIELDS

ASKED = Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once.")
BY_RULE = Ruling(True, Decider.RULE, Reason.RULE_ALLOWS, "allowed", "r7", "allow send_mail always")
REFUSED = Ruling(False, Decider.FAIL_CLOSED, Reason.HEADLESS, "no one is here to approve it")


@dataclass(frozen=True)
class ConsentTaint:
    """Stands in for the consent package's own taint type: the log takes any such shape."""

    argument: str
    value: str
    source: str


@pytest.fixture
def log(db: Database) -> AuditLog:
    return AuditLog(db)


def propose(log: AuditLog, call_id: str, **overrides: Any) -> int:
    fields: dict[str, Any] = {
        "call_id": call_id,
        "tool": "send_mail",
        "arguments": {"to": "eve@example.org", "subject": "Invoice"},
        "ruling": ASKED,
        "outcome": "proposed",
        "conversation_id": 1,
    }
    return log.append(**(fields | overrides))


def test_an_entry_round_trips_with_its_taint(log: AuditLog) -> None:
    taint = [ConsentTaint("to", "eve@example.org", "email 'Invoice #4411'")]
    row = propose(log, "call_1", taint=taint, ruling=BY_RULE)
    (entry,) = log.entries()
    assert entry.id == row and entry.call_id == "call_1" and entry.tool == "send_mail"
    assert entry.arguments == {"to": "eve@example.org", "subject": "Invoice"}
    assert entry.taint == (Taint("to", "eve@example.org", "email 'Invoice #4411'"),)
    assert (entry.decision, entry.outcome) == ("allow", "proposed")
    assert entry.ruling == BY_RULE
    assert entry.decided_by == "rule: allow send_mail always"
    assert entry.at.tzinfo is not None
    assert abs(entry.at - datetime.now(UTC)) < timedelta(minutes=1)


def test_rows_cannot_be_updated_or_deleted(log: AuditLog, db: Database) -> None:
    propose(log, "call_1")
    conn = db.connection()
    for sql in (
        "UPDATE audit SET decision = 'allow'",
        "UPDATE audit SET outcome = 'executed' WHERE call_id = 'call_1'",
        "DELETE FROM audit WHERE id = 1",
        "DELETE FROM audit",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    (entry,) = log.entries()
    assert (entry.decision, entry.outcome, entry.ruling) == ("allow", "proposed", ASKED)


def test_an_outcome_row_repeats_the_decision(log: AuditLog) -> None:
    taint = [Taint("to", "eve@example.org", "email 'Invoice'")]
    propose(log, "call_1", taint=taint)
    log.record_outcome("call_1", "executed", result_summary="sent", duration_ms=42)
    proposed, executed = log.entries(call_id="call_1")
    assert (proposed.outcome, executed.outcome) == ("proposed", "executed")
    assert executed.taint == proposed.taint and executed.arguments == proposed.arguments
    assert (executed.ruling, executed.result_summary, executed.duration_ms) == (ASKED, "sent", 42)
    with pytest.raises(StoreError, match="no call"):
        log.record_outcome("call_missing", "failed", duration_ms=None)


def test_filters_and_limit(log: AuditLog) -> None:
    propose(log, "a", conversation_id=1, tool="read_file", ruling=BY_RULE)
    propose(log, "b", conversation_id=2, ruling=REFUSED, outcome="denied")
    propose(log, "c", conversation_id=2)
    assert [e.call_id for e in log.entries(conversation_id=2)] == ["b", "c"]
    assert [e.call_id for e in log.entries(tool="read_file")] == ["a"]
    assert [e.call_id for e in log.entries(decision="deny")] == ["b"]
    assert [e.call_id for e in log.entries(limit=2)] == ["b", "c"]
    assert log.entries(since=datetime.now(UTC) + timedelta(seconds=5)) == []
    assert len(log.entries(since=datetime.now() - timedelta(minutes=5))) == 3  # naive = local


def test_long_summaries_are_truncated_and_marked(log: AuditLog) -> None:
    propose(log, "a", outcome="executed", result_summary="x" * (SUMMARY_LIMIT * 3))
    (entry,) = log.entries()
    assert len(entry.result_summary) == SUMMARY_LIMIT
    assert entry.result_summary.endswith("[truncated]")


def test_unknown_outcomes_are_refused(log: AuditLog) -> None:
    with pytest.raises(StoreError, match="outcome 'done'"):
        propose(log, "a", outcome="done")
    assert log.entries() == []


def test_export_json(log: AuditLog) -> None:
    propose(log, "a", taint=[Taint("to", "eve@example.org", "email")])
    log.record_outcome("a", "failed", result_summary="SMTP 550", duration_ms=7)
    out = io.StringIO()
    assert log.export(out, "json") == 2
    records = json.loads(out.getvalue())
    assert records == [entry.as_record() for entry in log.entries()]
    assert records[0]["taint"] == [
        {"argument": "to", "value": "eve@example.org", "source": "email"}
    ]
    assert records[1]["outcome"] == "failed" and records[1]["duration_ms"] == 7
    empty = io.StringIO()
    assert log.export(empty, "json", entries=[]) == 0
    assert json.loads(empty.getvalue()) == []


def test_export_csv_neutralises_spreadsheet_formulas(log: AuditLog) -> None:
    propose(log, "a", arguments={"q": "x"}, taint=[Taint("q", "x", "web page")])
    log.record_outcome("a", "executed", result_summary='=HYPERLINK("http://evil")', duration_ms=3)
    out = io.StringIO(newline="")
    assert log.export(out, "csv") == 2
    rows = list(csv.DictReader(io.StringIO(out.getvalue(), newline="")))
    assert tuple(rows[0]) == FIELDS
    assert json.loads(rows[0]["arguments"]) == {"q": "x"}
    assert json.loads(rows[0]["taint"])[0]["source"] == "web page"
    assert rows[0]["duration_ms"] == "" and rows[1]["duration_ms"] == "3"
    assert rows[1]["result_summary"] == '\'=HYPERLINK("http://evil")'


def test_an_unknown_export_format_is_refused(log: AuditLog) -> None:
    with pytest.raises(StoreError, match="xml"):
        log.export(io.StringIO(), "xml")  # type: ignore[arg-type]


def test_rows_from_before_typed_decisions_read_back_with_who_decided(db: Database) -> None:
    from hearth.store.audit import MIGRATIONS

    db.migrate("audit", MIGRATIONS[:1])
    with db.transaction() as conn:
        for call, decision, decided_by in (
            ("a", "allow", "rule 4f2c"),
            ("b", "deny", "fail-closed: no answer"),
            ("c", "allow", "user"),
        ):
            conn.execute(
                "INSERT INTO audit (at, call_id, tool, arguments, taint, decision, decided_by,"
                " outcome, result_summary) VALUES ('2026-01-01T00:00:00+00:00', ?, 't', '{}',"
                " '[]', ?, ?, 'proposed', '')",
                (call, decision, decided_by),
            )
    rulings = [entry.ruling for entry in AuditLog(db).entries()]
    assert [(r.allowed, r.decider, r.reason) for r in rulings] == [
        (True, Decider.RULE, Reason.UNRECORDED),
        (False, Decider.FAIL_CLOSED, Reason.UNRECORDED),
        (True, Decider.USER, Reason.UNRECORDED),
    ]
    assert rulings[1].wording == "no answer"


def test_partial_is_an_outcome(log: AuditLog) -> None:
    propose(log, "a")
    log.record_outcome("a", "partial", result_summary="moved 3 of 8")
    assert [e.outcome for e in log.entries()] == ["proposed", "partial"]


def test_the_partial_migration_keeps_every_row_index_and_trigger(tmp_path: Path) -> None:
    from hearth.store.audit import MIGRATIONS

    path = tmp_path / "hearth.db"
    with open_database(path) as old:  # the schema as the previous Hearth left it
        old.migrate("audit", MIGRATIONS[:2])
        with old.transaction() as conn:
            for n, outcome in enumerate(["proposed", "executed", "denied", "failed", "unknown"]):
                conn.execute(
                    "INSERT INTO audit (at, conversation_id, call_id, tool, arguments, taint,"
                    " decision, decided_by, outcome, result_summary, duration_ms, ruling)"
                    " VALUES (?, 7, ?, 't', '{\"n\": 1}', '[]', ?, 'user', ?, 'r', ?, ?)",
                    (
                        f"2026-01-0{n + 1}T00:00:00.000000+00:00",
                        f"call_{n}",
                        "deny" if outcome == "denied" else "allow",
                        outcome,
                        n,
                        json.dumps(ASKED.to_dict()) if n % 2 else "",
                    ),
                )
        before = [tuple(row) for row in old.query("SELECT * FROM audit ORDER BY id")]
        schema = _schema(old, "audit")
    with open_database(path) as db:
        log = AuditLog(db)
        assert db.schema_version("audit") == len(MIGRATIONS) == 7
        rows = [tuple(row) for row in db.query("SELECT * FROM audit ORDER BY id")]
        # then the empty `proposed_arguments`, no owner (taken as interrupted if open), no
        # card summary (read as the result's first lines) and no edit on record
        assert [row[:-4] for row in rows] == before
        assert {row[-4:] for row in rows} == {("", None, None, None)}
        assert {entry.card_summary for entry in log.entries()} == {"r"}
        assert {entry.edited_from for entry in log.entries()} == {None}
        assert _schema(db, "audit") == schema
        assert [e.outcome for e in log.entries()][-1] == "unknown"
        log.record_outcome("call_0", "partial", result_summary="moved 3 of 8")
        assert log.entries()[-1].id == len(before) + 1
        conn = db.connection()
        for sql in ("UPDATE audit SET outcome = 'executed'", "DELETE FROM audit"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(sql)
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(
                "INSERT INTO audit (at, call_id, tool, arguments, taint, decision, decided_by,"
                " outcome, result_summary) VALUES ('x', 'c', 't', '{}', '[]', 'allow', 'u',"
                " 'done', '')"
            )
        assert db.integrity_check() == ["ok"]
        plan = db.query("EXPLAIN QUERY PLAN SELECT * FROM audit WHERE call_id = 'call_0'")
        assert "audit_by_call" in str([tuple(row) for row in plan])


def test_mark_interrupted_gives_each_open_call_an_unknown_row(log: AuditLog) -> None:
    propose(log, "open")
    propose(log, "finished")
    log.record_outcome("finished", "executed")
    propose(log, "refused", ruling=REFUSED, outcome="denied")
    propose(log, "undo:finished", tool="files.move")
    assert log.mark_interrupted({"open": "moved 2 of 9"}) == ["open", "undo:finished"]
    assert [(e.call_id, e.outcome) for e in log.entries() if e.outcome == "unknown"] == [
        ("open", "unknown"),
        ("undo:finished", "unknown"),
    ]
    assert log.entries(call_id="open")[-1].result_summary == "moved 2 of 9"
    assert "stopped before this call finished" in log.entries()[-1].result_summary
    assert log.mark_interrupted() == []


def _schema(db: Database, table: str) -> list[tuple[str, str]]:
    """The table's indexes and triggers, by name and SQL."""
    rows = db.query(
        "SELECT name, sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger')"
        " ORDER BY name",
        (table,),
    )
    return [(row["name"], row["sql"]) for row in rows]
