from __future__ import annotations

from pathlib import Path

from hearth.store import Database, RuleTable, open_database


def test_rules_are_saved_replaced_and_deleted(db: Database) -> None:
    rules = RuleTable(db)
    rules.save_rule("r1", {"tool": "read_file", "scope": "~/Documents", "effect": "allow"})
    rules.save_rule("r2", {"tool": "send_mail", "scope": "@example.org", "effect": "deny"})
    rules.save_rule("r1", {"tool": "read_file", "scope": "~/Work", "effect": "allow"})
    assert [r["scope"] for r in rules.load_rules()] == ["~/Work", "@example.org"]
    assert rules.delete_rule("r2") is True
    assert rules.delete_rule("r2") is False
    assert [r["scope"] for r in rules.load_rules()] == ["~/Work"]


def test_rules_persist_across_opens(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    rule = {"tool": "set_volume", "range": [0, 50], "expires": None, "nested": {"a": [1.5]}}
    with open_database(path) as db:
        RuleTable(db).save_rule("r1", rule)
    with open_database(path) as db:
        assert RuleTable(db).load_rules() == [rule]
