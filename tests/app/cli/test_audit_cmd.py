from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.audit_cmd import audit
from hearth.consent import Rule, RuleBook
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, RuleTable, Taint, open_database


@pytest.fixture
def logged() -> None:
    """Three calls in the default database: one executed, one denied, one still proposed."""
    with open_database() as db:
        log = AuditLog(db)
        taint = [Taint("to", "eve@example.org", "email 'Invoice #4411'")]
        log.append(
            call_id="call_1",
            tool="send_mail",
            arguments={"to": "eve@example.org"},
            ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once."),
            outcome="proposed",
            conversation_id=1,
            taint=taint,
        )
        log.record_outcome(
            "call_1", "executed", result_summary="sent\nto eve " * 20, duration_ms=12
        )
        log.append(
            call_id="call_2",
            tool="set_volume",
            arguments={"level": 90},
            ruling=Ruling(
                False,
                Decider.RULE,
                Reason.RULE_DENIES,
                "your rule says no",
                "r3",
                "deny set_volume always",
            ),
            outcome="denied",
            conversation_id=2,
        )
        log.append(
            call_id="call_3",
            tool="read_file",
            arguments={"path": "~/notes.txt"},
            ruling=Ruling(False, Decider.FAIL_CLOSED, Reason.HEADLESS, "no approver"),
            outcome="proposed",
            conversation_id=2,
        )


def invoke(*args: str) -> str:
    result = CliRunner().invoke(audit, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def data_lines(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()[1:]]


@pytest.mark.usefixtures("logged")
def test_list_shows_a_table_oldest_first() -> None:
    out = invoke("list")
    header, *rows = out.splitlines()
    assert header.split()[:5] == ["ID", "TIME", "CONV", "CALL", "TOOL"]
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4"]
    assert "Hearth (fail-closed)" in rows[3]
    assert "sent to eve" in rows[1] and rows[1].endswith("…") and "12" in rows[1].split()


@pytest.mark.usefixtures("logged")
def test_list_filters() -> None:
    assert [r[0] for r in data_lines(invoke("list", "--conversation", "2"))] == ["3", "4"]
    assert [r[0] for r in data_lines(invoke("list", "--tool", "send_mail"))] == ["1", "2"]
    assert [r[0] for r in data_lines(invoke("list", "--decision", "deny"))] == ["3", "4"]
    assert [r[0] for r in data_lines(invoke("list", "--limit", "1"))] == ["4"]


def test_list_on_an_empty_log() -> None:
    assert "no matching entries" in invoke("list")


@pytest.mark.usefixtures("logged")
def test_export_json_to_stdout() -> None:
    records = json.loads(invoke("export", "--format", "json"))
    assert [r["call_id"] for r in records] == ["call_1", "call_1", "call_2", "call_3"]
    assert records[0]["taint"][0]["source"] == "email 'Invoice #4411'"
    assert [r["id"] for r in json.loads(invoke("export", "--decision", "allow"))] == [1, 2]


@pytest.mark.usefixtures("logged")
def test_export_csv_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "audit.csv"
    result = CliRunner().invoke(audit, ["export", "--format", "csv", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert f"Exported 4 entries to {target}" in result.stderr
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"), newline="")))
    assert [row["outcome"] for row in rows] == ["proposed", "executed", "denied", "proposed"]
    assert json.loads(rows[2]["arguments"]) == {"level": 90}


def test_export_refuses_an_unknown_format() -> None:
    result = CliRunner().invoke(audit, ["export", "--format", "xml"])
    assert result.exit_code == 2 and "xml" in result.output


def test_list_fits_the_terminal_and_names_rules_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "150")
    with open_database() as db:
        rules = RuleBook(RuleTable(db))
        rule = rules.add(Rule.create("files.read", "allow", now=0.0, scope="/home/u/Docs"))
        log = AuditLog(db)
        log.append(
            call_id="call_9",
            tool="files.read",
            arguments={"path": "/home/u/Docs/a.txt"},
            ruling=Ruling(True, Decider.RULE, Reason.RULE_ALLOWS, "a rule allows it", rule.id),
            outcome="proposed",
            conversation_id=1,
        )
        log.record_outcome("call_9", "executed", result_summary="word " * 100, duration_ms=3)
        with db.transaction() as conn:  # a row from before decisions were typed
            conn.execute(
                "INSERT INTO audit (at, conversation_id, call_id, tool, arguments, taint,"
                " decision, decided_by, outcome, result_summary) VALUES"
                " ('2026-01-01T00:00:00+00:00', 1, 'call_8', 'files.read', '{}', '[]',"
                " 'allow', ?, 'executed', '')",
                (f"user (rule {rule.id})",),
            )
    out = invoke("list")
    assert rule.id not in out
    assert out.count("allow files.read on /home/u/Docs") == 3  # the rule, by what it allows
    assert all(len(line) <= 150 for line in out.splitlines()), out
    assert "word word" in out and "…" in out
