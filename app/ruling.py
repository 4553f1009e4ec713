"""The typed record of who decided a proposed call, and why; front ends render it, never parse it.

Every sentence a person reads about a decision is written here, once: the CLI card, the Qt card
and the Activity page show the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Literal

Duration = Literal["once", "conversation", "hour", "always"]
DURATION_WORDS: dict[Duration, str] = {
    "once": "once",
    "conversation": "for this conversation",
    "hour": "for 1 hour",
    "always": "always",
}
EFFECT_WORDS = {
    "read": "reads your data",
    "write": "changes your data",
    "send": "sends something out",
    "system": "changes system settings",
}


class Decider(StrEnum):
    """Who made the decision."""

    RULE = "rule"
    USER = "user"
    FAIL_CLOSED = "fail-closed"


class Reason(StrEnum):
    """Why: the gate's grounds for allow, ask or deny, the user's answer, or a fail-closed cause."""

    RULE_ALLOWS = "rule-allows"
    RULE_DENIES = "rule-denies"
    RULE_ASKS = "rule-asks"
    NEEDS_APPROVAL = "needs-approval"
    TAINTED_ARGUMENT = "tainted-argument"
    UNTRUSTED_CONTEXT = "untrusted-context"
    UNKNOWN_TOOL = "unknown-tool"
    NOT_OFFERED = "not-offered"
    MALFORMED = "malformed"
    INVALID_ARGUMENTS = "invalid-arguments"
    CANNOT_RUN = "cannot-run"
    GRANT_FAILED = "grant-failed"
    HEADLESS = "headless"
    NO_ANSWER = "no-answer"
    ALLOWED_ONCE = "allowed-once"
    ALLOWED_FOR = "allowed-for"
    EDITED = "edited"
    EDIT_INVALID = "edit-invalid"
    DENIED = "denied"
    UNDO = "undo"
    UNRECORDED = "unrecorded"


@dataclass(frozen=True, slots=True)
class Ruling:
    """The final decision on one call: run it or not, who decided, why, under which rule."""

    allowed: bool
    decider: Decider
    reason: Reason
    wording: str
    rule_id: str | None = None
    rule_text: str = ""

    @property
    def fail_closed(self) -> bool:
        return self.decider is Decider.FAIL_CLOSED

    @property
    def by_rule(self) -> bool:
        return self.decider is Decider.RULE

    def by_whom(self) -> str:
        """Who decided, for a column of the Activity page: "you", "rule: …" or "Hearth"."""
        if self.decider is Decider.RULE:
            return f"rule: {self.rule_text}" if self.rule_text else "a rule"
        if self.decider is Decider.FAIL_CLOSED:
            return "Hearth (fail-closed)"
        return "you, with a new rule" if self.rule_id else "you"

    def sentence(self) -> str:
        """How the decision reads on a finished card; empty when the user's own answer shows it."""
        if self.decider is Decider.RULE:
            verb = "Allowed automatically" if self.allowed else "Refused"
            return f"{verb} by your rule: {self.rule_text or self.wording}."
        if self.decider is Decider.FAIL_CLOSED:
            return f"Refused automatically ({self.wording})."
        return ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruling:
        return cls(
            allowed=bool(data["allowed"]),
            decider=Decider(data["decider"]),
            reason=Reason(data["reason"]),
            wording=str(data.get("wording") or ""),
            rule_id=data.get("rule_id") or None,
            rule_text=str(data.get("rule_text") or ""),
        )
