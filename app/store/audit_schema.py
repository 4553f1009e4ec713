"""The audit table's schema, step by step: append-only, enforced by triggers; and how a row
written before a step reads the column that step added."""

from __future__ import annotations

import json
import re
import sqlite3

from hearth.ruling import Decider, Reason, Ruling
from hearth.tools import summary_of

_APPEND_ONLY = "SELECT RAISE(ABORT, 'the audit log is append-only')"

_INDEXES_AND_TRIGGERS = [
    "CREATE INDEX audit_by_call ON audit (call_id)",
    "CREATE INDEX audit_by_conversation ON audit (conversation_id)",
    f"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN {_APPEND_ONLY}; END",
    f"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN {_APPEND_ONLY}; END",
]
_COLUMNS = (
    "id, at, conversation_id, call_id, tool, arguments, taint, decision, decided_by, outcome,"
    " result_summary, duration_ms, ruling"
)

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
        *_INDEXES_AND_TRIGGERS,
    ],
    [
        # The typed decision (hearth.ruling.Ruling) as JSON; rows from before it say so.
        "ALTER TABLE audit ADD COLUMN ruling TEXT NOT NULL DEFAULT ''",
    ],
    [
        # Outcome `partial` is new. SQLite cannot alter a CHECK, so the table is rebuilt with
        # every row (ids kept, AUTOINCREMENT's high-water mark too), then its indexes and
        # append-only triggers are made again. DROP TABLE fires no DELETE trigger.
        "CREATE TABLE audit_rebuilt ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " at TEXT NOT NULL,"
        " conversation_id INTEGER,"
        " call_id TEXT NOT NULL,"
        " tool TEXT NOT NULL,"
        " arguments TEXT NOT NULL,"
        " taint TEXT NOT NULL,"
        " decision TEXT NOT NULL CHECK (decision IN ('allow', 'ask', 'deny')),"
        " decided_by TEXT NOT NULL,"
        " outcome TEXT NOT NULL CHECK (outcome IN"
        "   ('proposed', 'denied', 'executed', 'failed', 'partial', 'unknown')),"
        " result_summary TEXT NOT NULL,"
        " duration_ms INTEGER,"
        " ruling TEXT NOT NULL DEFAULT '')",
        f"INSERT INTO audit_rebuilt ({_COLUMNS}) SELECT {_COLUMNS} FROM audit ORDER BY id",
        "UPDATE sqlite_sequence SET seq = max(seq,"
        " coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0))"
        " WHERE name = 'audit_rebuilt'",
        "DROP TABLE audit",
        "ALTER TABLE audit_rebuilt RENAME TO audit",
        *_INDEXES_AND_TRIGGERS,
    ],
    [
        # What the model proposed, beside `arguments` (what ran, e.g. after the user's edit);
        # '' on older rows, which kept only one set. Adding a column leaves the triggers alone.
        "ALTER TABLE audit ADD COLUMN proposed_arguments TEXT NOT NULL DEFAULT ''",
    ],
    [
        # The owner (hearth.store.owners) that wrote the row, so startup recovery leaves a live
        # process's proposed call alone; NULL on rows from before owners, taken as interrupted.
        "ALTER TABLE audit ADD COLUMN owner TEXT",
    ],
    [
        # The line the call's card showed (its typed result's summary, made in the core), so a
        # conversation read back shows the same without reading the result again; NULL on
        # older rows, which show the first lines of `result_summary` instead.
        "ALTER TABLE audit ADD COLUMN card_summary TEXT",
    ],
    [
        # The call as the user saw it before their edit (hearth.Provenance), JSON; NULL when
        # they changed nothing, and on older rows, which did not keep it.
        "ALTER TABLE audit ADD COLUMN edited_from TEXT",
    ],
]


# Rows written before decisions were typed name their rule by id: "rule ID", "user (rule ID)".
_LEGACY_RULE = re.compile(r"\brule ([0-9a-f-]{8,})")


def read_ruling(row: sqlite3.Row) -> Ruling:
    """The row's typed decision; a row written before decisions were typed kept only who."""
    if row["ruling"]:
        return Ruling.from_dict(json.loads(row["ruling"]))
    legacy: str = row["decided_by"]
    decider = next((d for d in Decider if legacy.startswith(d.value)), Decider.USER)
    allowed = row["decision"] == "allow"
    rule = _LEGACY_RULE.search(legacy)
    return Ruling(
        allowed,
        decider,
        Reason.UNRECORDED,
        legacy.removeprefix("fail-closed: "),
        rule_id=rule.group(1) if rule else None,
    )


def read_card_summary(row: sqlite3.Row) -> str:
    """The line the call's card showed; an older row shows its result's first lines."""
    stored: str | None = row["card_summary"]
    return summary_of(row["result_summary"]) if stored is None else stored
