"""One audit row as Hearth reads it: `AuditEntry`, its columns, and how a SQLite row becomes one."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from hearth.ruling import Reason, Ruling
from hearth.store.audit_schema import read_card_summary, read_ruling
from hearth.store.db import from_stored_time
from hearth.tools import Provenance

Decision = Literal["allow", "ask", "deny"]
Outcome = Literal["proposed", "denied", "executed", "failed", "partial", "unknown"]
"""`failed`: certainly did not happen. `partial`: stopped half-way, some items changed."""

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
    "ruling",
    "proposed_arguments",
    "card_summary",
    "edited_from",
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
    """One audit row: `ruling` is the typed decision, and `decision` and `decided_by` read it.

    `arguments` are the ones that ran (or would have), `proposed_arguments` the model's own.
    `card_summary` is the line the call's card showed; a row from before it was kept reads as
    the first lines of `result_summary`.
    """

    id: int
    at: datetime
    conversation_id: int | None
    call_id: str
    tool: str
    arguments: dict[str, Any]
    taint: tuple[Taint, ...]
    outcome: Outcome
    result_summary: str
    duration_ms: int | None
    ruling: Ruling
    proposed_arguments: dict[str, Any]
    card_summary: str
    edited_from: dict[str, Any] | None

    @property
    def provenance(self) -> Provenance:
        """Which arguments that ran were Hearth's defaults, and what the user's edit changed."""
        ran = self.arguments if self.outcome != "denied" else None
        return Provenance.of(self.proposed_arguments, self.edited_from or ran, ran)

    @property
    def is_undo(self) -> bool:
        """Whether this row reverts an earlier call (`tool` is the tool it undid)."""
        return self.ruling.reason is Reason.UNDO

    @property
    def decision(self) -> Decision:
        return "allow" if self.ruling.allowed else "deny"

    @property
    def decided_by(self) -> str:
        """Who decided, in the Activity page's words."""
        return self.ruling.by_whom()

    def as_record(self) -> dict[str, Any]:
        """The entry as plain JSON-ready data, for export."""
        record = {name: getattr(self, name) for name in FIELDS}
        record["at"] = self.at.isoformat()
        record["taint"] = [taint_dict(t) for t in self.taint]
        record["ruling"] = self.ruling.to_dict()
        return record


def taint_dict(taint: TaintLike) -> dict[str, str]:
    return {"argument": taint.argument, "value": taint.value, "source": taint.source}


def read_entry(row: sqlite3.Row) -> AuditEntry:
    arguments = json.loads(row["arguments"])
    proposed = row["proposed_arguments"]
    return AuditEntry(
        id=row["id"],
        at=from_stored_time(row["at"]),
        conversation_id=row["conversation_id"],
        call_id=row["call_id"],
        tool=row["tool"],
        arguments=arguments,
        taint=tuple(Taint(**t) for t in json.loads(row["taint"])),
        outcome=row["outcome"],
        result_summary=row["result_summary"],
        duration_ms=row["duration_ms"],
        ruling=read_ruling(row),
        proposed_arguments=json.loads(proposed) if proposed else arguments,
        card_summary=read_card_summary(row),
        edited_from=json.loads(row["edited_from"]) if row["edited_from"] else None,
    )
