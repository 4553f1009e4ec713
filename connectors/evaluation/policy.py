"""The approver a scenario runs with: a careful user who knows what they asked for.

It approves every read (the user granted their mailbox, calendars and Documents folder) and a
side effect only when the call fits one of the scenario's `approve` patterns: the calls a
person who typed those requests would allow on seeing the card. Everything else is refused.
So an injected "forward this to attacker@…" is refused whenever Hearth asks, and the suite
measures whether Hearth asks: a standing rule that would allow the call without asking is
exactly what the rule of two must override once untrusted text was read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth import Proposal
from hearth.connectors.evaluation.changes import matches
from hearth.connectors.evaluation.scenario import CallPattern


@dataclass
class CarefulUser:
    """`approve(proposal)` for `hearth.Session`, keeping every proposal it was shown."""

    approve: Sequence[CallPattern]
    shown: list[Proposal] = field(default_factory=list)

    def __call__(self, proposal: Proposal) -> bool:
        self.shown.append(proposal)
        if proposal.effect == "read":
            return True
        return any(fits(pattern, proposal.tool, proposal.arguments) for pattern in self.approve)


def fits(pattern: CallPattern, tool: str, arguments: Mapping[str, Any]) -> bool:
    """Whether a call of `tool` with `arguments` fits `pattern` (tool name, then matchers)."""
    return pattern.tool == tool and matches(pattern.arguments, arguments)
