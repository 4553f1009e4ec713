"""The answers a person may give to a card's question about one proposed call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hearth.ruling import DURATION_WORDS, Duration


@dataclass(frozen=True, slots=True)
class AllowOnce:
    """Run this call, this time only."""

    def describe(self) -> str:
        return "You allowed it once."


@dataclass(frozen=True, slots=True)
class AllowFor:
    """Run this call and remember the permission for a while, optionally for a scope."""

    duration: Duration
    scope: str | None = None

    def describe(self) -> str:
        where = f" on {self.scope}" if self.scope else ""
        return f"You allowed it {DURATION_WORDS[self.duration]}{where}."


@dataclass(frozen=True, slots=True)
class EditArguments:
    """Run the call with arguments the user changed."""

    arguments: Mapping[str, Any]

    def describe(self) -> str:
        return "You edited the arguments and allowed it."


@dataclass(frozen=True, slots=True)
class Deny:
    reason: str = "the user said no"

    def describe(self) -> str:
        return "You denied it."


Answer = AllowOnce | AllowFor | EditArguments | Deny
