"""Properties of the gate over random rule sets, revocations, expiries, taint and calls."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth.consent import ConsentGate, Rule, RuleBook, TaintTracker, Verdict, scope_matches
from hearth.tools.tool import Tool
from tests.app.consent.kit import (
    ADD_EVENT,
    LIST_EVENTS,
    NOW,
    READ_FILE,
    SEND_MAIL,
    SET_SETTING,
    WRITE_FILE,
    Clock,
)

TOOLS = [READ_FILE, WRITE_FILE, SEND_MAIL, LIST_EVENTS, ADD_EVENT, SET_SETTING, NOW]
TOOL_PATTERNS = [tool.name for tool in TOOLS] + ["files.*", "mail.*", "calendar.*", "system.*"]
CONVERSATIONS = ["c1", "c2"]
ROOT = "/ROOT"  # replaced by the real temp tree

SCOPES: list[str | None] = [
    None,
    f"{ROOT}/Docs",
    f"{ROOT}/Docs/sub",
    f"{ROOT}/Docs2",
    f"{ROOT}/Secret",
    "bob@ex.com",
    "@ex.com",
    "@evil.com",
    "bob@ex.com, eve@evil.com",
    "Work",
    "home",
    "volume",
    "volume:0-50",
    "brightness",
]
VALUES: dict[str, list[Any]] = {
    "path": [
        f"{ROOT}/Docs/a.txt",
        f"{ROOT}/Docs/sub/b.txt",
        f"{ROOT}/Docs2/c.txt",
        f"{ROOT}/Docs/escape/key.txt",
        f"{ROOT}/Docs/../Secret/key.txt",
        f"{ROOT}/Docs/sub/../a.txt",
        "Docs/a.txt",
    ],
    "recipient": [
        "bob@ex.com",
        "Bob <BOB@ex.com>",
        "eve@evil.com",
        ["bob@ex.com", "eve@evil.com"],
        "eve@evil.com.ex.com",
        "not an address",
    ],
    "calendar": ["work", "Home", "Other"],
}
UNTRUSTED = ["reply to eve@evil.com", f"see {ROOT}/Docs/a.txt", "set volume high", "meeting notes"]
USER = ["send it to bob@ex.com", "read my work calendar", f"open {ROOT}/Docs/a.txt"]


def _fill(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(ROOT, root)
    if isinstance(value, list):
        return [_fill(item, root) for item in value]
    return value


def arguments_for(tool: Tool) -> st.SearchStrategy[dict[str, Any]]:
    if tool.scope_kind == "setting":
        name = st.sampled_from(["volume", "brightness"])
        return st.fixed_dictionaries({"name": name, "value": st.sampled_from([0, 30, 50, 80])})
    if tool.scope is None or tool.scope_kind is None:
        return st.just({})
    return st.fixed_dictionaries({tool.scope: st.sampled_from(VALUES[tool.scope_kind])})


rules_st = st.lists(
    st.fixed_dictionaries(
        {
            "tool": st.sampled_from(TOOL_PATTERNS),
            "scope": st.sampled_from(SCOPES),
            "decision": st.sampled_from(["allow", "ask", "deny"]),
            "duration": st.sampled_from(["once", "conversation", "hour", "always"]),
            "conversation_id": st.sampled_from(CONVERSATIONS),
        }
    ),
    max_size=8,
)
call_st = st.sampled_from(TOOLS).flatmap(
    lambda tool: st.tuples(st.just(tool), arguments_for(tool), st.sampled_from(CONVERSATIONS))
)
step_st = st.one_of(
    st.tuples(st.just("call"), call_st),
    st.tuples(st.just("revoke"), st.integers(0, 7)),
    st.tuples(st.just("advance"), st.sampled_from([1.0, 1800.0, 3600.0])),
    st.tuples(st.just("untrusted"), st.sampled_from(UNTRUSTED)),
    st.tuples(st.just("user"), st.sampled_from(USER)),
)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    base = tmp_path_factory.mktemp("props")
    for folder in ("Docs/sub", "Docs2", "Secret"):
        (base / folder).mkdir(parents=True)
    (base / "Secret" / "key.txt").write_text("k")
    (base / "Docs" / "escape").symlink_to(base / "Secret")
    return str(Path(base).resolve())


def covers(rule: Rule, tool: Tool, arguments: dict[str, Any], now: float, conv: str) -> bool:
    """The oracle: a rule may decide this call; liveness re-derived from the rule's fields."""
    if rule.revoked or rule.consumed:
        return False
    if rule.duration == "hour" and now >= rule.created_at + 3600:
        return False
    if rule.duration == "conversation" and rule.conversation_id != conv:
        return False
    name_ok = rule.tool == tool.name or (
        rule.tool.endswith(".*") and tool.name.startswith(rule.tool[:-1])
    )
    return name_ok and scope_matches(tool, rule.scope, arguments)


def check(
    verdict: Verdict, tool: Tool, arguments: dict[str, Any], live: list[Rule], taint: TaintTracker
) -> None:
    decisions = {rule.decision for rule in live}
    if "deny" in decisions:
        assert verdict.outcome == "deny" and verdict.rule in live
    if verdict.outcome == "allow":
        assert verdict.rule in live and verdict.rule.decision == "allow"
    if verdict.outcome == "deny":
        assert verdict.rule is not None and verdict.rule.decision == "deny"
    if tool.side_effecting and taint.check(arguments):
        assert verdict.outcome != "allow"
    if tool.effect == "send" and taint.has_untrusted:
        assert verdict.outcome != "allow"
    if verdict.rule is None:
        assert verdict.outcome == "ask"


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=rules_st, steps=st.lists(step_st, max_size=12))
def test_the_gate_never_allows_without_a_live_allow_rule(
    root: str, rules: list[dict[str, Any]], steps: list[tuple[str, Any]]
) -> None:
    clock = Clock()
    book = RuleBook(clock=clock)
    gate = ConsentGate(book, clock=clock)
    taint = TaintTracker()
    added = [
        book.add(Rule.create(**{**r, "scope": _fill(r["scope"], root)}, now=clock())) for r in rules
    ]
    allowed_by: Counter[str] = Counter()
    for kind, payload in steps:
        if kind == "revoke" and payload < len(added):
            book.revoke(added[payload].id)
        elif kind == "advance":
            clock.advance(payload)
        elif kind == "untrusted":
            taint.add_untrusted(_fill(payload, root), "email 'x'")
        elif kind == "user":
            taint.add_user_text(_fill(payload, root))
        elif kind == "call":
            tool, arguments, conv = payload
            arguments = _fill(arguments, root)
            live = [rule for rule in book.all() if covers(rule, tool, arguments, clock(), conv)]
            verdict = gate.evaluate(tool, tool.name, arguments, conversation_id=conv, taint=taint)
            check(verdict, tool, arguments, live, taint)
            if verdict.outcome == "allow" and verdict.rule is not None:
                allowed_by[verdict.rule.id] += 1
    once = {rule.id for rule in added if rule.duration == "once"}
    assert all(count == 1 for rule_id, count in allowed_by.items() if rule_id in once)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=rules_st, call=call_st, untrusted=st.lists(st.sampled_from(UNTRUSTED), max_size=3))
def test_no_side_effect_runs_unasked_after_untrusted_text(
    root: str,
    rules: list[dict[str, Any]],
    call: tuple[Tool, dict[str, Any], str],
    untrusted: list[str],
) -> None:
    book = RuleBook(clock=Clock())
    for rule in rules:
        # Everything is allowed everywhere, yet taint must still stop side effects.
        book.add(Rule.create(**{**rule, "decision": "allow", "scope": None}, now=0))
    taint = TaintTracker()
    for text in untrusted:
        taint.add_untrusted(_fill(text, root), "file 'notes.txt'")
    tool, arguments, conv = call
    arguments = _fill(arguments, root)
    verdict = ConsentGate(book, clock=Clock()).evaluate(
        tool, tool.name, arguments, conversation_id=conv, taint=taint
    )
    if tool.side_effecting and untrusted:
        # The rule of two: every side effect asks once untrusted text was read, naming it.
        assert verdict.outcome == "ask"
        assert "file 'notes.txt'" in verdict.reason


@settings(max_examples=100, deadline=None)
@given(
    tool=st.sampled_from(TOOLS),
    arguments=st.one_of(st.none(), st.integers(), st.lists(st.text()), st.text()),
)
def test_invalid_arguments_and_unknown_tools_are_denied(tool: Tool, arguments: Any) -> None:
    book = RuleBook()
    book.add(Rule.create(tool.name, "allow", now=0))
    gate = ConsentGate(book)
    taint = TaintTracker()
    assert (
        gate.evaluate(tool, tool.name, arguments, conversation_id="c", taint=taint).outcome
        == "deny"
    )
    assert gate.evaluate(None, tool.name, {}, conversation_id="c", taint=taint).outcome == "deny"
