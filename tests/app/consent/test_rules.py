from __future__ import annotations

import json
from pathlib import Path

import pytest

from hearth.consent import ConsentError, Rule, RuleBook
from tests.app.consent.kit import Clock, JsonRuleFile


def test_an_hour_rule_expires_an_hour_after_it_was_made() -> None:
    clock = Clock()
    book = RuleBook(clock=clock)
    rule = book.add(Rule.create("files.read", "allow", now=clock(), duration="hour"))
    clock.advance(3599)
    assert book.live() == [rule]
    clock.advance(1)
    assert book.live() == []


def test_a_once_rule_is_used_up_by_one_use() -> None:
    clock = Clock()
    book = RuleBook(clock=clock)
    rule = book.add(Rule.create("files.read", "allow", now=clock(), duration="once"))
    assert book.mark_used(rule.id)
    assert not book.mark_used(rule.id)
    assert book.live() == []
    assert book.all()[0].consumed


def test_use_is_recorded_without_using_up_a_lasting_rule() -> None:
    clock = Clock()
    book = RuleBook(clock=clock)
    rule = book.add(Rule.create("files.read", "allow", now=clock()))
    clock.advance(5)
    assert book.mark_used(rule.id)
    used = book.get(rule.id)
    assert used is not None and used.last_used_at == clock() and not used.consumed
    assert book.live() == [used]


def test_a_conversation_rule_lives_only_in_its_conversation() -> None:
    book = RuleBook(clock=Clock())
    rule = book.add(
        Rule.create("mail.send", "allow", now=0, duration="conversation", conversation_id="c1")
    )
    assert book.live(conversation_id="c1") == [rule]
    assert book.live(conversation_id="c2") == []
    assert book.live(conversation_id=None) == []


def test_a_conversation_rule_needs_a_conversation() -> None:
    with pytest.raises(ConsentError, match="conversation"):
        Rule.create("mail.send", "allow", now=0, duration="conversation")


def test_a_revoked_rule_no_longer_lives_but_stays_listed() -> None:
    book = RuleBook(clock=Clock())
    rule = book.add(Rule.create("files.read", "allow", now=0))
    revoked = book.revoke(rule.id)
    assert revoked.revoked
    assert book.live() == []
    assert book.all() == [revoked]
    assert not book.mark_used(rule.id)


def test_revoking_an_unknown_rule_says_so() -> None:
    with pytest.raises(ConsentError, match="no consent rule"):
        RuleBook().revoke("nope")


@pytest.mark.parametrize("tool", ["", "*", "files.*.read", "files read", "files.**", ".*"])
def test_malformed_tool_patterns_are_refused(tool: str) -> None:
    with pytest.raises(ConsentError, match="tool pattern"):
        Rule.create(tool, "allow", now=0)


def test_connector_patterns_cover_that_connectors_tools_only() -> None:
    rule = Rule.create("files.*", "deny", now=0)
    assert rule.covers_tool("files.read") and rule.covers_tool("files.sub.write")
    assert not rule.covers_tool("filesystem.read")
    assert not rule.covers_tool("files")
    assert Rule.create("files.read", "deny", now=0).covers_tool("files.read")
    assert not Rule.create("files.read", "deny", now=0).covers_tool("files.read2")


def test_rules_survive_a_round_trip_through_the_store(tmp_path: Path) -> None:
    store = JsonRuleFile(tmp_path / "rules.json")
    clock = Clock()
    book = RuleBook(store, clock=clock)
    kept = book.add(Rule.create("files.read", "allow", now=clock(), scope="/home/a/Docs"))
    hour = book.add(Rule.create("mail.send", "deny", now=clock(), duration="hour"))
    book.revoke(hour.id)
    reloaded = RuleBook(JsonRuleFile(tmp_path / "rules.json"), clock=clock)
    assert {rule.id: rule for rule in reloaded.all()} == {
        kept.id: kept,
        hour.id: Rule.from_dict({**hour.to_dict(), "revoked": True}),
    }


def test_a_malformed_stored_rule_is_an_error_not_skipped(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    row = Rule.create("mail.send", "deny", now=0).to_dict()
    path.write_text(json.dumps({row["id"]: {**row, "decision": "maybe"}}))
    with pytest.raises(ConsentError, match="decision"):
        RuleBook(JsonRuleFile(path))
    path.write_text(json.dumps({row["id"]: {**row, "colour": "red"}}))
    with pytest.raises(ConsentError, match="malformed"):
        RuleBook(JsonRuleFile(path))


def test_changes_are_announced(tmp_path: Path) -> None:
    clock = Clock()
    book = RuleBook(clock=clock)
    seen: list[Rule] = []
    book.on_change.append(seen.append)
    rule = book.add(Rule.create("files.read", "allow", now=clock(), duration="once"))
    book.mark_used(rule.id)
    book.revoke(rule.id)
    assert [(r.id, r.consumed, r.revoked) for r in seen] == [
        (rule.id, False, False),
        (rule.id, True, False),
        (rule.id, True, True),
    ]


def test_describe_reads_as_a_sentence() -> None:
    rule = Rule.create("files.read", "allow", now=0, scope="/home/a/Docs", duration="hour")
    assert rule.describe() == "allow files.read on /home/a/Docs for 1 hour"
    assert Rule.create("mail.*", "deny", now=0).describe() == "deny mail.* always"


def test_a_rule_for_after_untrusted_content_is_kept_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    book = RuleBook(JsonRuleFile(path))
    flagged = book.add(Rule.create("system.wifi", "allow", now=0, after_untrusted=True))
    plain = book.add(Rule.create("system.wifi", "allow", now=0))
    reloaded = RuleBook(JsonRuleFile(path))
    assert reloaded.get(flagged.id) == flagged and reloaded.get(plain.id) == plain
    assert flagged.describe() == (
        "allow system.wifi always, ⚠ even after reading untrusted content"
    )
    assert plain.describe() == "allow system.wifi always"


def test_rules_stored_before_the_flag_existed_load_without_it(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    row = Rule.create("mail.send", "allow", now=0).to_dict()
    del row["after_untrusted"]
    path.write_text(json.dumps({row["id"]: row}))
    (loaded,) = RuleBook(JsonRuleFile(path)).all()
    assert loaded.after_untrusted is False


@pytest.mark.parametrize("decision", ["ask", "deny"])
def test_only_an_allow_rule_can_apply_after_untrusted_content(decision: str) -> None:
    with pytest.raises(ConsentError, match="after_untrusted"):
        Rule.create("system.wifi", decision, now=0, after_untrusted=True)  # type: ignore[arg-type]
    with pytest.raises(ConsentError, match="after_untrusted"):
        Rule.from_dict({**Rule.create("x.y", "allow", now=0).to_dict(), "after_untrusted": "yes"})


def test_an_edit_keeps_the_flag_only_on_an_allow_rule() -> None:
    from hearth.consent.changes import RuleChange, replace_rule
    from hearth.tools import ToolRegistry

    book = RuleBook()
    old = book.add(Rule.create("system.wifi", "allow", now=0))
    flagged = replace_rule(book, ToolRegistry(), old, RuleChange("allow", None, "always", True))
    assert flagged.after_untrusted
    denied = replace_rule(book, ToolRegistry(), flagged, RuleChange("deny", None, "always", True))
    assert not denied.after_untrusted and denied.decision == "deny"
