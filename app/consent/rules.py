"""Consent rules (allow, ask or deny a tool on a scope, for a while) and the book holding them."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, Protocol, get_args

from hearth.errors import HearthError
from hearth.ruling import DURATION_WORDS, Duration

Decision = Literal["allow", "ask", "deny"]
RuleSource = Literal["user", "cli-flag", "default"]
Clock = Callable[[], float]

HOUR_S = 3600.0
UNTRUSTED_WARNING = "⚠ even after reading untrusted content"
_TOOL_PATTERN = re.compile(r"[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*(?:\.\*)?")


class ConsentError(HearthError):
    """A consent rule is malformed or cannot be built for the call."""


@dataclass(frozen=True)
class Rule:
    """One user decision about a tool (or `connector.*`) on a scope pattern (None: any).

    An allow rule stops applying to side effects once the conversation has read untrusted
    content, unless the user made it `after_untrusted` on purpose.
    """

    id: str
    tool: str
    scope: str | None
    decision: Decision
    duration: Duration
    conversation_id: str | None
    created_at: float
    expires_at: float | None = None
    last_used_at: float | None = None
    revoked: bool = False
    consumed: bool = False
    source: RuleSource = "user"
    after_untrusted: bool = False

    @classmethod
    def create(
        cls,
        tool: str,
        decision: Decision,
        *,
        now: float,
        scope: str | None = None,
        duration: Duration = "always",
        conversation_id: str | None = None,
        source: RuleSource = "user",
        after_untrusted: bool = False,
    ) -> Rule:
        """A new rule; an hour rule expires an hour from `now`."""
        rule = cls(
            id=str(uuid.uuid4()),
            tool=tool,
            scope=scope,
            decision=decision,
            duration=duration,
            conversation_id=conversation_id if duration == "conversation" else None,
            created_at=now,
            expires_at=now + HOUR_S if duration == "hour" else None,
            source=source,
            after_untrusted=after_untrusted,
        )
        rule.check()
        return rule

    def check(self) -> None:
        """Raise ConsentError unless every field holds a value the gate understands."""
        problems = [
            (self.decision not in get_args(Decision), f"decision {self.decision!r}"),
            (self.duration not in get_args(Duration), f"duration {self.duration!r}"),
            (self.source not in get_args(RuleSource), f"source {self.source!r}"),
            (not _is_tool_pattern(self.tool), f"tool pattern {self.tool!r}"),
            (self.scope is not None and not _is_text(self.scope), f"scope {self.scope!r}"),
            (self.duration == "conversation" and not self.conversation_id, "no conversation"),
            (not isinstance(self.id, str) or not self.id, "id"),
            (not _is_time(self.created_at), "created_at"),
            (self.expires_at is not None and not _is_time(self.expires_at), "expires_at"),
            (not isinstance(self.revoked, bool) or not isinstance(self.consumed, bool), "flags"),
            (not isinstance(self.after_untrusted, bool), "after_untrusted"),
            (self.after_untrusted and self.decision != "allow", "after_untrusted on a non-allow"),
        ]
        for failed, what in problems:
            if failed:
                raise ConsentError(f"consent rule {self.id}: invalid {what}")

    def used_at(self, when: float | None) -> Rule:
        """This rule with its last use at `when`; itself when None."""
        return self if when is None else replace(self, last_used_at=when)

    def covers_tool(self, name: str) -> bool:
        """Whether this rule names the tool exactly or by its `connector.*` prefix."""
        if self.tool.endswith(".*"):
            return name.startswith(self.tool[:-1])
        return name == self.tool

    def is_live(self, now: float, conversation_id: str | None) -> bool:
        """Not revoked, used up or expired, and (per-conversation rules) for this conversation."""
        if self.revoked or self.consumed:
            return False
        if self.expires_at is not None and now >= self.expires_at:
            return False
        return self.duration != "conversation" or self.conversation_id == conversation_id

    def describe(self) -> str:
        """A short sentence for the dashboard and for reasons, e.g. "allow files.read in ~/Docs"."""
        where = f" on {self.scope}" if self.scope is not None else ""
        text = f"{self.decision} {self.tool}{where} {DURATION_WORDS[self.duration]}"
        return f"{text}, {UNTRUSTED_WARNING}" if self.after_untrusted else text

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        """The rule stored by `to_dict`; ConsentError if the row is malformed."""
        try:
            rule = cls(**dict(data))
        except TypeError as error:
            raise ConsentError(f"consent rule {data.get('id')!r} is malformed: {error}") from None
        rule.check()
        return rule


class RulePersistence(Protocol):
    """Where a RuleBook keeps its rules (the store writes them as JSON rows)."""

    def load_rules(self) -> list[dict[str, Any]]: ...

    def save_rule(self, id: str, data: dict[str, Any]) -> None: ...

    def delete_rule(self, id: str) -> object: ...


class RuleBook:
    """Every consent rule, live or not; changes are persisted and announced to `on_change`."""

    def __init__(self, persistence: RulePersistence | None = None, clock: Clock = time.time):
        self.clock = clock
        self.on_change: list[Callable[[Rule], None]] = []
        self._persistence = persistence
        self._lock = threading.RLock()
        self._rules: dict[str, Rule] = {}
        for row in persistence.load_rules() if persistence else []:
            # A malformed row raises rather than being skipped: it might be a deny rule.
            rule = Rule.from_dict(row)
            self._rules[rule.id] = rule

    def add(self, rule: Rule) -> Rule:
        rule.check()
        self._store(rule)
        return rule

    def get(self, rule_id: str) -> Rule | None:
        with self._lock:
            return self._rules.get(rule_id)

    def all(self) -> list[Rule]:
        """Every rule, oldest first, including revoked, expired and used-up ones."""
        with self._lock:
            return sorted(self._rules.values(), key=lambda rule: rule.created_at)

    def live(self, now: float | None = None, conversation_id: str | None = None) -> list[Rule]:
        """Rules that can still decide a call in `conversation_id` at `now`."""
        at = self.clock() if now is None else now
        return [rule for rule in self.all() if rule.is_live(at, conversation_id)]

    def revoke(self, rule_id: str) -> Rule:
        with self._lock:
            rule = self._existing(rule_id)
            return self._store(replace(rule, revoked=True))

    def mark_used(self, rule_id: str, now: float | None = None) -> bool:
        """Record a use; a `once` rule is used up. False if it could no longer decide."""
        at = self.clock() if now is None else now
        with self._lock:
            rule = self._existing(rule_id)
            if _is_dead(rule, at):
                return False
            self._store(replace(rule, last_used_at=at, consumed=rule.duration == "once"))
            return True

    def _existing(self, rule_id: str) -> Rule:
        rule = self._rules.get(rule_id)
        if rule is None:
            raise ConsentError(f"no consent rule with id {rule_id}")
        return rule

    def _store(self, rule: Rule) -> Rule:
        with self._lock:
            # Memory first: a revocation must take effect even if the store then fails.
            self._rules[rule.id] = rule
            if self._persistence:
                self._persistence.save_rule(rule.id, rule.to_dict())
        self._announce([rule])
        return rule

    def _announce(self, rules: list[Rule]) -> None:
        for rule in rules:
            for callback in list(self.on_change):
                callback(rule)


def _is_tool_pattern(value: object) -> bool:
    return isinstance(value, str) and _TOOL_PATTERN.fullmatch(value) is not None


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_time(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_dead(rule: Rule, now: float) -> bool:
    return rule.revoked or rule.consumed or (rule.expires_at is not None and now >= rule.expires_at)
