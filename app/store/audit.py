"""The audit log: an append-only record of every proposed tool call and what became of it.

A row can never change (triggers abort UPDATE and DELETE), so one call is recorded as rows
linked by `call_id`: a decision row written before the tool runs (outcome `proposed`, or
`denied` when nothing will run), then an outcome row when it ends (`executed`, `failed` or
`unknown`). Writing the decision first means a crash mid-call still leaves its proposal,
arguments, taint and decision on record.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, TextIO, cast, get_args

from hearth.store.db import (
    Database,
    NotFound,
    StoreError,
    from_stored_time,
    to_stored_time,
    utc_now,
)

Decision = Literal["allow", "ask", "deny"]
Outcome = Literal["proposed", "denied", "executed", "failed", "unknown"]
ExportFormat = Literal["json", "csv"]

SUMMARY_LIMIT = 2000
_TRUNCATION_MARK = " …[truncated]"
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_APPEND_ONLY = "SELECT RAISE(ABORT, 'the audit log is append-only')"

# conversation_id is deliberately not a foreign key: deleting a conversation must not
# (and, with these triggers, could not) delete its audit history.
MIGRATIONS = [
    [
        "CREATE TABLE audit ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " at TEXT NOT NULL,"
        " conversation_id INTEGER,"
        " call_id TEXT NOT NULL,"
        " tool TEXT NOT NULL,"
        " arguments TEXT NOT NULL,"
        " taint TEXT NOT NULL,"
        " decision TEXT NOT NULL CHECK (decision IN ('allow', 'ask', 'deny')),"
        " decided_by TEXT NOT NULL,"
        " outcome TEXT NOT NULL"
        "   CHECK (outcome IN ('proposed', 'denied', 'executed', 'failed', 'unknown')),"
        " result_summary TEXT NOT NULL,"
        " duration_ms INTEGER)",
        "CREATE INDEX audit_by_call ON audit (call_id)",
        "CREATE INDEX audit_by_conversation ON audit (conversation_id)",
        f"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN {_APPEND_ONLY}; END",
        f"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN {_APPEND_ONLY}; END",
    ],
]

FIELDS = (
    "id",
    "at",
    "conversation_id",
    "call_id",
    "tool",
    "arguments",
    "taint",
    "decision",
    "decided_by",
    "outcome",
    "result_summary",
    "duration_ms",
)


class TaintLike(Protocol):
    """Anything naming a tainted argument, its value and where that value came from."""

    @property
    def argument(self) -> str: ...

    @property
    def value(self) -> str: ...

    @property
    def source(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Taint:
    argument: str
    value: str
    source: str


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audit row. `decided_by` is "rule <id>", "user", "default" or "fail-closed: <why>"."""

    id: int
    at: datetime
    conversation_id: int | None
    call_id: str
    tool: str
    arguments: dict[str, Any]
    taint: tuple[Taint, ...]
    decision: Decision
    decided_by: str
    outcome: Outcome
    result_summary: str
    duration_ms: int | None

    def as_record(self) -> dict[str, Any]:
        """The entry as plain JSON-ready data, for export."""
        record = {name: getattr(self, name) for name in FIELDS}
        record["at"] = self.at.isoformat()
        record["taint"] = [_taint_dict(t) for t in self.taint]
        return record


class AuditLog:
    """Append and read the audit log; there is deliberately no way to edit it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("audit", MIGRATIONS)

    def append(
        self,
        *,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        decision: Decision,
        decided_by: str,
        outcome: Outcome,
        conversation_id: int | None = None,
        taint: Sequence[TaintLike] = (),
        result_summary: str = "",
        duration_ms: int | None = None,
    ) -> int:
        """Write one row, durably, and return its id."""
        self._check(decision, outcome)
        values = (
            utc_now(),
            conversation_id,
            call_id,
            tool,
            _dumps(dict(arguments)),
            _dumps([_taint_dict(t) for t in taint]),
            decision,
            decided_by,
            outcome,
            truncate(result_summary),
            duration_ms,
        )
        with self.db.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO audit ({', '.join(FIELDS[1:])}) VALUES ({', '.join('?' * 11)})",
                values,
            )
        return int(cast(int, cursor.lastrowid))

    def _check(self, decision: str, outcome: str) -> None:
        # Refused here, not only by the CHECK constraint, so the message names the value.
        if decision not in get_args(Decision):
            raise StoreError(self.db.path, f"unknown audit decision {decision!r}")
        if outcome not in get_args(Outcome):
            raise StoreError(self.db.path, f"unknown audit outcome {outcome!r}")

    def entries(
        self,
        *,
        conversation_id: int | None = None,
        tool: str | None = None,
        decision: Decision | None = None,
        call_id: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[AuditEntry]:
        """Matching entries, oldest first; with `limit`, the most recent `limit` of them."""
        filters = {
            "conversation_id = ?": conversation_id,
            "tool = ?": tool,
            "decision = ?": decision,
            "call_id = ?": call_id,
            "at >= ?": to_stored_time(since) if since is not None else None,
        }
        used = {clause: value for clause, value in filters.items() if value is not None}
        where = " AND ".join(used) or "1"
        sql = f"SELECT * FROM audit WHERE {where} ORDER BY id DESC"
        params: list[Any] = list(used.values())
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [_entry(row) for row in reversed(self.db.query(sql, params))]

    def record_outcome(
        self,
        call_id: str,
        outcome: Outcome,
        *,
        result_summary: str = "",
        duration_ms: int | None = None,
    ) -> int:
        """Append the outcome row of a call whose decision row is already in the log."""
        rows = self.db.query(
            "SELECT * FROM audit WHERE call_id = ? ORDER BY id DESC LIMIT 1", (call_id,)
        )
        if not rows:
            raise NotFound(self.db.path, f"the audit log has no call {call_id!r}")
        decided = _entry(rows[0])
        return self.append(
            call_id=call_id,
            tool=decided.tool,
            arguments=decided.arguments,
            decision=decided.decision,
            decided_by=decided.decided_by,
            outcome=outcome,
            conversation_id=decided.conversation_id,
            taint=decided.taint,
            result_summary=result_summary,
            duration_ms=duration_ms,
        )

    def export(
        self,
        fp: TextIO,
        format: ExportFormat = "json",
        *,
        entries: Sequence[AuditEntry] | None = None,
    ) -> int:
        """Write `entries` (default: the whole log) to `fp` as JSON or CSV; returns the count."""
        chosen = self.entries() if entries is None else entries
        if format == "json":
            _write_json(fp, chosen)
        elif format == "csv":
            _write_csv(fp, chosen)
        else:
            raise StoreError(self.db.path, f"unknown export format {format!r}; use json or csv")
        return len(chosen)


def _write_json(fp: TextIO, entries: Sequence[AuditEntry]) -> None:
    records = [_dumps(entry.as_record()) for entry in entries]
    fp.write("[\n" + ",\n".join(records) + "\n]\n" if records else "[]\n")


def _write_csv(fp: TextIO, entries: Sequence[AuditEntry]) -> None:
    writer = csv.writer(fp)
    writer.writerow(FIELDS)
    for entry in entries:
        record = entry.as_record()
        cells = [record[name] for name in FIELDS]
        writer.writerow([_csv_cell(cell) for cell in cells])


def _csv_cell(value: object) -> object:
    if isinstance(value, dict | list):
        return _dumps(value)
    # Arguments and summaries can come from untrusted mail or web text; a leading = + - @
    # would run as a formula when the export is opened in a spreadsheet.
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return "" if value is None else value


def truncate(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """`text` cut to at most `limit` characters, marked when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - len(_TRUNCATION_MARK)] + _TRUNCATION_MARK


def _dumps(data: object) -> str:
    # default=str: an argument JSON cannot encode must still be recorded, never lost.
    return json.dumps(data, ensure_ascii=False, default=str)


def _taint_dict(taint: TaintLike) -> dict[str, str]:
    return {"argument": taint.argument, "value": taint.value, "source": taint.source}


def _entry(row: sqlite3.Row) -> AuditEntry:
    return AuditEntry(
        id=row["id"],
        at=from_stored_time(row["at"]),
        conversation_id=row["conversation_id"],
        call_id=row["call_id"],
        tool=row["tool"],
        arguments=json.loads(row["arguments"]),
        taint=tuple(Taint(**t) for t in json.loads(row["taint"])),
        decision=row["decision"],
        decided_by=row["decided_by"],
        outcome=row["outcome"],
        result_summary=row["result_summary"],
        duration_ms=row["duration_ms"],
    )
