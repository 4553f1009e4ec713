"""Consent rules as JSON rows; the consent package owns their meaning and shape."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hearth.store.db import Database, utc_now

MIGRATIONS = [
    [
        "CREATE TABLE rules ("
        " id TEXT PRIMARY KEY,"
        " data TEXT NOT NULL,"
        " created_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL)",
    ],
]


class RuleTable:
    """Load, save and delete rules, each a JSON object keyed by the rule's id."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("rules", MIGRATIONS)

    def load_rules(self) -> list[dict[str, Any]]:
        """Every saved rule, in the order each was first saved."""
        rows = self.db.query("SELECT data FROM rules ORDER BY rowid")
        return [json.loads(row["data"]) for row in rows]

    def save_rule(self, id: str, data: Mapping[str, Any]) -> None:
        """Insert the rule or replace the one with this id; durable when this returns."""
        now = utc_now()
        # No default=: a rule JSON cannot encode is a bug and must not be saved half-right.
        encoded = json.dumps(dict(data), ensure_ascii=False)
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO rules (id, data, created_at, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET data = excluded.data,"
                " updated_at = excluded.updated_at",
                (id, encoded, now, now),
            )

    def delete_rule(self, id: str) -> bool:
        """Delete the rule; False when there was none with this id."""
        with self.db.transaction() as conn:
            return conn.execute("DELETE FROM rules WHERE id = ?", (id,)).rowcount > 0
