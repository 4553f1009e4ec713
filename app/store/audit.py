"""The audit log: an append-only record of every proposed tool call and what became of it.

A row can never change (triggers abort UPDATE and DELETE), so one call is recorded as rows
linked by `call_id`: a decision row written before the tool runs (outcome `proposed`, or
`denied` when nothing will run), then an outcome row when it ends (`executed`, `failed` or
`partial` or `unknown`). Writing the decision first means a crash mid-call still leaves its
proposal, arguments, taint and decision on record; at the next start, `mark_interrupted()` gives
such a call its `unknown` outcome row, unless the row's owner (`Database.owner`) is still alive.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, TextIO, cast, get_args

from hearth.ruling import Ruling
from hearth.store.audit_entry import (
    FIELDS,
    AuditEntry,
    Decision,
    Outcome,
    TaintLike,
    read_entry,
    taint_dict,
)
from hearth.store.audit_export import dumps, write_csv, write_json
from hearth.store.audit_schema import MIGRATIONS
from hearth.store.db import (
    Database,
    NotFound,
    StoreError,
    to_stored_time,
    utc_now,
)

ExportFormat = Literal["json", "csv"]

SUMMARY_LIMIT = 2000
INTERRUPTED = "Hearth stopped before this call finished; it may have run in part or in full"
_TRUNCATION_MARK = " …[truncated]"
# Calls whose last row is their decision to run: begun and never finished.
_STILL_PROPOSED = (
    "SELECT call_id, owner FROM audit AS a WHERE outcome = 'proposed' AND NOT EXISTS"
    " (SELECT 1 FROM audit AS b WHERE b.call_id = a.call_id AND b.id > a.id)"
)


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
        ruling: Ruling,
        outcome: Outcome,
        conversation_id: int | None = None,
        taint: Sequence[TaintLike] = (),
        result_summary: str = "",
        duration_ms: int | None = None,
        proposed_arguments: Mapping[str, Any] | None = None,
        card_summary: str | None = None,
        edited_from: Mapping[str, Any] | None = None,
    ) -> int:
        """Write one row, durably, and return its id; the proposal defaults to `arguments`."""
        decision: Decision = "allow" if ruling.allowed else "deny"
        self._check(decision, outcome)
        values = (
            utc_now(),
            conversation_id,
            call_id,
            tool,
            dumps(dict(arguments)),
            dumps([taint_dict(t) for t in taint]),
            decision,
            ruling.by_whom(),
            outcome,
            truncate(result_summary),
            duration_ms,
            dumps(ruling.to_dict()),
            dumps(dict(arguments if proposed_arguments is None else proposed_arguments)),
            None if card_summary is None else truncate(card_summary),
            None if edited_from is None else dumps(dict(edited_from)),
            self.db.owner,
        )
        columns, marks = ", ".join((*FIELDS[1:], "owner")), ", ".join("?" * len(values))
        with self.db.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO audit ({columns}) VALUES ({marks})",
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
        return [read_entry(row) for row in reversed(self.db.query(sql, params))]

    def record_outcome(
        self,
        call_id: str,
        outcome: Outcome,
        *,
        result_summary: str = "",
        card_summary: str | None = None,
        duration_ms: int | None = None,
    ) -> int:
        """Append the outcome row of a call whose decision row is already in the log."""
        rows = self.db.query(
            "SELECT * FROM audit WHERE call_id = ? ORDER BY id DESC LIMIT 1", (call_id,)
        )
        if not rows:
            raise NotFound(self.db.path, f"the audit log has no call {call_id!r}")
        decided = read_entry(rows[0])
        return self.append(
            call_id=call_id,
            tool=decided.tool,
            arguments=decided.arguments,
            proposed_arguments=decided.proposed_arguments,
            ruling=decided.ruling,
            outcome=outcome,
            conversation_id=decided.conversation_id,
            taint=decided.taint,
            result_summary=result_summary,
            card_summary=card_summary,
            duration_ms=duration_ms,
        )

    def mark_interrupted(
        self, summaries: Mapping[str, str] | None = None, live: Collection[str] = ()
    ) -> list[str]:
        """At startup: give every call still `proposed` an `unknown` outcome row; their ids.

        `summaries` may word a call's row (e.g. what its undo journal kept). Like
        `IntentLog.reconcile`, it leaves alone a call whose owner is in `live`.
        """
        summaries = summaries or {}
        spared = sorted(live)
        rows = self.db.query(
            f"{_STILL_PROPOSED} AND (owner IS NULL OR owner NOT IN"
            f" ({', '.join('?' * len(spared))})) ORDER BY id",
            spared,
        )
        calls = [str(row["call_id"]) for row in rows]
        with self.db.transaction():
            for call_id in calls:
                summary = summaries.get(call_id, INTERRUPTED)
                self.record_outcome(call_id, "unknown", result_summary=summary)
        return calls

    def open_owners(self) -> set[str]:
        """The owners of calls still `proposed`: whose process must be asked if it lives."""
        rows = self.db.query(
            f"SELECT DISTINCT owner FROM ({_STILL_PROPOSED}) AS a WHERE owner IS NOT NULL"
        )
        return {str(row["owner"]) for row in rows}

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
            write_json(fp, chosen)
        elif format == "csv":
            write_csv(fp, chosen, FIELDS)
        else:
            raise StoreError(self.db.path, f"unknown export format {format!r}; use json or csv")
        return len(chosen)


def truncate(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """`text` cut to at most `limit` characters, marked when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - len(_TRUNCATION_MARK)] + _TRUNCATION_MARK
