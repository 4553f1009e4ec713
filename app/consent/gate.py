"""The consent gate: the model only proposes a call; this decides allow, ask or deny.

Order, failing closed: unknown tool or invalid arguments deny; a matching deny rule denies; a
side-effecting call with tainted arguments asks; a send after untrusted text asks; a matching
allow rule allows; anything else asks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hearth.consent.rules import (
    Clock,
    ConsentError,
    Decision,
    Rule,
    RuleBook,
    RuleSource,
)
from hearth.consent.scopes import exact_scope, pin_scope, scope_matches
from hearth.consent.taint import TaintNote, TaintTracker
from hearth.ruling import Duration, Reason
from hearth.tools.tool import Tool

_DEFAULT_REASONS = {
    "read": "reading needs your permission until you allow a scope for it",
    "write": "changing your data needs your approval",
    "send": "sending something off this machine needs your approval",
    "system": "changing system settings needs your approval",
}
# When several allow rules match, the longest-lived decides, so a `once` rule is not spent
# on a call an `always` rule already covers.
_LIFETIME = {"always": 0, "hour": 1, "conversation": 2, "once": 3}
_VALUE_MAX = 60


@dataclass(frozen=True)
class Verdict:
    """What the gate decided about one proposed call, and why."""

    outcome: Decision
    cause: Reason
    reason: str
    rule: Rule | None = None
    taint: tuple[TaintNote, ...] = ()


class ConsentGate:
    """Decides every proposed tool call from the rule book and the conversation's taint."""

    def __init__(self, rulebook: RuleBook, clock: Clock = time.time) -> None:
        self.rulebook = rulebook
        self.clock = clock
        # Serialises decisions so two calls cannot both spend one `once` rule.
        self._lock = threading.Lock()

    def evaluate(
        self,
        tool: Tool | None,
        tool_name: str,
        arguments: Mapping[str, Any] | None,
        *,
        conversation_id: str | None,
        taint: TaintTracker,
    ) -> Verdict:
        """The verdict on calling `tool_name` with `arguments` in `conversation_id`."""
        if tool is None or tool.name != tool_name:
            return Verdict("deny", Reason.UNKNOWN_TOOL, f"unknown tool '{tool_name}'")
        if not isinstance(arguments, Mapping):
            return Verdict("deny", Reason.INVALID_ARGUMENTS, f"invalid arguments for '{tool_name}'")
        notes = tuple(taint.check(arguments))
        with self._lock:
            now = self.clock()
            rules = self.matching_rules(tool, arguments, conversation_id=conversation_id, now=now)
            verdict = (
                self._deny(rules, now) or _untrusted(tool, notes, taint) or self._allow(rules, now)
            )
        return _with_taint(verdict or _ask(tool, rules), notes)

    def matching_rules(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        *,
        conversation_id: str | None,
        now: float | None = None,
    ) -> list[Rule]:
        """Live rules whose tool and scope pattern cover this call."""
        at = self.clock() if now is None else now
        return [
            rule
            for rule in self.rulebook.live(at, conversation_id)
            if rule.covers_tool(tool.name) and scope_matches(tool, rule.scope, arguments)
        ]

    def grant(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        duration: Duration,
        conversation_id: str | None = None,
        scope: str | None = None,
        *,
        decision: Decision = "allow",
        any_resource: bool = False,
        source: RuleSource = "user",
    ) -> Rule:
        """Add and return a rule for this call's tool: by default just this call's resource.

        `scope` widens it to a pattern (a folder, an @domain, a range) that must cover this call;
        `any_resource` drops the scope altogether.
        """
        pattern = None if any_resource else _grant_scope(tool, arguments, scope)
        rule = Rule.create(
            tool.name,
            decision,
            now=self.clock(),
            scope=pattern,
            duration=duration,
            conversation_id=conversation_id,
            source=source,
        )
        return self.rulebook.add(rule)

    def _deny(self, rules: list[Rule], now: float) -> Verdict | None:
        for rule in rules:
            if rule.decision == "deny":
                self.rulebook.mark_used(rule.id, now)
                return Verdict(
                    "deny", Reason.RULE_DENIES, f"your rule says no: {rule.describe()}", rule
                )
        return None

    def _allow(self, rules: list[Rule], now: float) -> Verdict | None:
        allows = sorted((r for r in rules if r.decision == "allow"), key=_lifetime)
        for rule in allows:
            if self.rulebook.mark_used(rule.id, now):
                return Verdict(
                    "allow", Reason.RULE_ALLOWS, f"allowed by your rule: {rule.describe()}", rule
                )
        return None


def _lifetime(rule: Rule) -> int:
    return _LIFETIME[rule.duration]


def _untrusted(tool: Tool, notes: tuple[TaintNote, ...], taint: TaintTracker) -> Verdict | None:
    """Ask whatever the rules say when untrusted text could be steering a side effect."""
    if tool.side_effecting and notes:
        lifted = "; ".join(describe_taint(tool, note) for note in notes)
        return Verdict("ask", Reason.TAINTED_ARGUMENT, f"{lifted}, so this needs your approval")
    if tool.effect == "send" and taint.has_untrusted:
        sources = ", ".join(taint.sources)
        return Verdict(
            "ask",
            Reason.UNTRUSTED_CONTEXT,
            f"this conversation has read untrusted content ({sources}), "
            "so sending always needs your approval",
        )
    return None


def describe_taint(tool: Tool, note: TaintNote) -> str:
    """The sentence naming where a tainted argument came from, as cards and reasons say it."""
    top = note.argument.split("[", 1)[0].split(".", 1)[0]
    label = tool.scope_kind if top == tool.scope and tool.scope_kind else note.argument
    value = note.value if len(note.value) <= _VALUE_MAX else note.value[: _VALUE_MAX - 1] + "…"
    return f"{label} '{value}' came from {note.source}"


def _ask(tool: Tool, rules: list[Rule]) -> Verdict:
    for rule in rules:
        if rule.decision == "ask":
            return Verdict(
                "ask", Reason.RULE_ASKS, f"your rule says to ask: {rule.describe()}", rule
            )
    wording = _DEFAULT_REASONS.get(tool.effect, "this needs your approval")
    return Verdict("ask", Reason.NEEDS_APPROVAL, wording)


def _with_taint(verdict: Verdict, notes: tuple[TaintNote, ...]) -> Verdict:
    return replace(verdict, taint=notes)


def _grant_scope(tool: Tool, arguments: Mapping[str, Any], scope: str | None) -> str | None:
    """The pattern a grant stores: the call's own resource unless a wider one was chosen."""
    if tool.scope is None:
        return None
    pattern = exact_scope(tool, arguments) if scope is None else scope.strip()
    if pattern:
        pattern = pin_scope(tool, pattern)
    if not pattern or not scope_matches(tool, pattern, arguments):
        shown = scope if scope is not None else arguments.get(tool.scope)
        raise ConsentError(f"cannot grant '{tool.name}' on {shown!r}: it does not cover this call")
    return pattern
