"""The consent gate: the model only proposes a call; this decides allow, ask or deny.

Order, failing closed: unknown tool or invalid arguments deny; a matching deny rule denies; once
the conversation has read untrusted content, a side effect (write, send, system) is allowed only
by a rule made "even after reading untrusted content" and otherwise asks, naming what was read
(the rule of two); a matching allow rule allows; anything else asks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hearth.consent.canonical import safe_label, safe_text
from hearth.consent.rules import (
    Clock,
    ConsentError,
    Decision,
    Rule,
    RuleBook,
    RuleSource,
)
from hearth.consent.scopes import exact_scope, pin_scope, scope_matches, scope_touches
from hearth.consent.taint import TaintNote, TaintTracker
from hearth.ruling import Duration, Reason
from hearth.tools.tool import Effect, Tool

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
_SOURCES_SHOWN = 5
_DOING: dict[Effect, str] = {
    "read": "reading",
    "write": "every change to your data",
    "send": "anything it sends",
    "system": "every change to system settings",
}
_HOW = {"copied": "came from", "derived": "is built from a name in", "matches": "may come from"}


@dataclass(frozen=True)
class Verdict:
    """What the gate decided about one proposed call, and why."""

    outcome: Decision
    cause: Reason
    reason: str
    rule: Rule | None = None
    taint: tuple[TaintNote, ...] = ()
    # What untrusted content the conversation had read when the gate asked because of it.
    sources: tuple[str, ...] = ()
    # The allow rule that would have decided the call, had the conversation not read untrusted
    # content (the rule of two asked instead); its use is not recorded, since it did not decide.
    overridden: Rule | None = None


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
        untrusted = tool.side_effecting and taint.has_untrusted
        notes = tuple(taint.check(arguments, thorough=untrusted))
        notes += tuple(taint.reached(tool.reached_from))
        # An invitation is judged on its people and on the calendar it changes: a rule must
        # cover both, and a deny on either denies. A call that names nothing of its own (a
        # reply, whose people come from the message) is judged on its people alone.
        facets = [tool]
        if tool.primary is not None and tool.primary.scope_args:
            facets.append(tool.primary)
        with self._lock:
            now = self.clock()
            rules = [
                self.matching_rules(facet, arguments, conversation_id=conversation_id, now=now)
                for facet in facets
            ]
            verdict = next(filter(None, (self._deny(found, now) for found in rules)), None)
            if verdict is None and untrusted:
                verdict = self._allow(rules, now, after_untrusted=True) or _rule_of_two(
                    tool, notes, tuple(taint.sources), _would_allow(rules)
                )
            verdict = verdict or self._allow(rules, now)
        return _with_taint(verdict or _ask(tool, rules), notes)

    def denial(
        self, tool: Tool, arguments: Mapping[str, Any], *, conversation_id: str | None
    ) -> Verdict | None:
        """The deny a rule makes of this call, if any: for arguments the user edited, which no
        rule allowed but a rule may still forbid."""
        facets = [tool, *([tool.primary] if tool.primary and tool.primary.scope_args else [])]
        with self._lock:
            now = self.clock()
            for facet in facets:
                found = self.matching_rules(
                    facet, arguments, conversation_id=conversation_id, now=now
                )
                verdict = self._deny(found, now)
                if verdict is not None:
                    return verdict
        return None

    def matching_rules(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        *,
        conversation_id: str | None,
        now: float | None = None,
    ) -> list[Rule]:
        """Live rules whose tool and scope pattern cover this call (a deny: any part of it)."""
        at = self.clock() if now is None else now
        return [
            rule
            for rule in self.rulebook.live(at, conversation_id)
            if rule.covers_tool(tool.name)
            and (scope_touches if rule.decision == "deny" else scope_matches)(
                tool, rule.scope, arguments
            )
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
        after_untrusted: bool = False,
        used: bool = False,
    ) -> Rule:
        """Add and return a rule for this call's tool: by default just this call's resources.

        `scope` widens it to a pattern (a folder, an @domain, a range) that must cover this call;
        a call that names no resource (a search of every granted folder) gets a rule with none;
        `any_resource` drops the scope altogether; `after_untrusted` keeps it allowing side
        effects after the conversation read untrusted content. `used`: the rule decides this
        call as it is made (a card's "Allow for…"), so its first use is recorded now.
        """
        pattern = None if any_resource else _grant_scope(tool, arguments, scope)
        if tool.primary is not None and tool.primary.scope_args and pattern is not None:
            # An invitation's grant names its people; the calendar it changes is granted too,
            # exactly, or the next such call would still ask about the calendar.
            own = _grant_scope(tool.primary, arguments, None)
            made = self._rule(
                tool, decision, own, duration, conversation_id, source, after_untrusted
            )
            self.rulebook.add(made.used_at(self.clock() if used else None))
        rule = self._rule(
            tool, decision, pattern, duration, conversation_id, source, after_untrusted
        )
        return self.rulebook.add(rule.used_at(self.clock() if used else None))

    def _rule(
        self,
        tool: Tool,
        decision: Decision,
        pattern: str | None,
        duration: Duration,
        conversation_id: str | None,
        source: RuleSource,
        after_untrusted: bool,
    ) -> Rule:
        return Rule.create(
            tool.name,
            decision,
            now=self.clock(),
            scope=pattern,
            duration=duration,
            conversation_id=conversation_id,
            source=source,
            after_untrusted=after_untrusted,
        )

    def _deny(self, rules: list[Rule], now: float) -> Verdict | None:
        for rule in rules:
            if rule.decision == "deny":
                self.rulebook.mark_used(rule.id, now)
                return Verdict(
                    "deny", Reason.RULE_DENIES, f"your rule says no: {rule.describe()}", rule
                )
        return None

    def _allow(
        self, facets: list[list[Rule]], now: float, *, after_untrusted: bool = False
    ) -> Verdict | None:
        """Allowed when every facet has an allow rule (only those made for after untrusted
        content, if so); each facet's longest-lived one is used, the first decides the wording."""
        chosen = [_longest_lived_allow(rules, after_untrusted) for rules in facets]
        if any(rule is None for rule in chosen):
            return None
        # One rule may cover both facets (`calendar.*` on any resource); it is used once.
        unique = list({rule.id: rule for rule in chosen if rule is not None}.values())
        if not all(self.rulebook.mark_used(rule.id, now) for rule in unique):
            return None
        rule = unique[0]
        return Verdict(
            "allow", Reason.RULE_ALLOWS, f"allowed by your rule: {rule.describe()}", rule
        )


def _longest_lived_allow(rules: list[Rule], after_untrusted: bool) -> Rule | None:
    allows = sorted(
        (r for r in rules if r.decision == "allow" and (r.after_untrusted or not after_untrusted)),
        key=_lifetime,
    )
    return allows[0] if allows else None


def _lifetime(rule: Rule) -> int:
    return _LIFETIME[rule.duration]


def _would_allow(facets: list[list[Rule]]) -> Rule | None:
    """The allow rule that would decide the call if the rule of two did not: one covering every
    facet, the longest-lived; nothing is marked used."""
    chosen = [_longest_lived_allow(rules, after_untrusted=False) for rules in facets]
    return chosen[0] if chosen and all(rule is not None for rule in chosen) else None


def _rule_of_two(
    tool: Tool, notes: tuple[TaintNote, ...], sources: tuple[str, ...], overridden: Rule | None
) -> Verdict:
    """Ask, whatever the rules say: untrusted content could be steering this side effect."""
    why = (
        f"this conversation has read untrusted content ({describe_sources(sources)}), "
        f"so {_DOING[tool.effect]} needs your approval, whatever your rules say"
    )
    cause = Reason.TAINTED_ARGUMENT if notes else Reason.UNTRUSTED_CONTEXT
    if notes:
        why = f"{'; '.join(describe_taint(tool, note) for note in notes)}; {why}"
    return Verdict("ask", cause, why, sources=sources, overridden=overridden)


def describe_sources(sources: tuple[str, ...] | list[str]) -> str:
    """The untrusted items read, most recent last, e.g. "files.read of /home/u/todo.md"."""
    shown = list(sources[-_SOURCES_SHOWN:])
    hidden = len(sources) - len(shown)
    earlier = f"{hidden} earlier item{'s' if hidden > 1 else ''}; " if hidden else ""
    return earlier + "; ".join(shown)


def describe_taint(tool: Tool, note: TaintNote) -> str:
    """The sentence naming where a tainted argument came from, as cards and reasons say it."""
    top = note.argument.split("[", 1)[0].split(".", 1)[0]
    label = tool.scope_kind if top in tool.scope_args and tool.scope_kind else note.argument
    value = safe_label(note.value)
    value = value if len(value) <= _VALUE_MAX else value[: _VALUE_MAX - 1] + "…"
    return f"{label} '{value}' {_HOW.get(note.how, 'came from')} {note.source}"


def _ask(tool: Tool, facets: list[list[Rule]]) -> Verdict:
    for rule in (rule for rules in facets for rule in rules):
        if rule.decision == "ask":
            return Verdict(
                "ask", Reason.RULE_ASKS, f"your rule says to ask: {rule.describe()}", rule
            )
    wording = _DEFAULT_REASONS.get(tool.effect, "this needs your approval")
    if tool.reaches:
        wording = f"it notifies {_people(tool.reaches)}: {wording}"
    return Verdict("ask", Reason.NEEDS_APPROVAL, wording)


def _people(addresses: tuple[str, ...]) -> str:
    shown = ", ".join(safe_text(address) for address in addresses[:_SOURCES_SHOWN])
    hidden = len(addresses) - _SOURCES_SHOWN
    return f"{shown} and {hidden} more" if hidden > 0 else shown


def _with_taint(verdict: Verdict, notes: tuple[TaintNote, ...]) -> Verdict:
    return replace(verdict, taint=notes)


def _grant_scope(tool: Tool, arguments: Mapping[str, Any], scope: str | None) -> str | None:
    """The pattern a grant stores: the call's own resource unless a wider one was chosen."""
    if not tool.names_resource:
        return None
    if scope is None and tool.scoped_values(arguments) is None:
        # The call names no resource ("search every granted folder"): the rule has no pattern,
        # which is what the card offered as "any granted folder".
        return None
    pattern = exact_scope(tool, arguments) if scope is None else scope.strip()
    if pattern:
        pattern = pin_scope(tool, pattern)
    if not pattern or not scope_matches(tool, pattern, arguments):
        shown = scope if scope is not None else tool.scoped_values(arguments)
        raise ConsentError(f"cannot grant '{tool.name}' on {shown!r}: it does not cover this call")
    return pattern
