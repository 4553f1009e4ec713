"""Where each argument of a call that ran came from: the model, Hearth's defaults, or the user.

Worked out once, in the core, when the call is decided, and kept with its audit row, so a card,
live or read back, says "You changed" only for what the user changed and shows a default that
Hearth filled in as a default, never as an edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Provenance:
    """`filled`: the defaults Hearth added to the model's call that ran as they were (one left
    unset, None, is not shown). `edited_from`: the call as the user saw it before their edit,
    defaults included; None when they changed nothing."""

    filled: Mapping[str, Any] = field(default_factory=dict)
    edited_from: Mapping[str, Any] | None = None

    @classmethod
    def of(
        cls,
        proposed: Mapping[str, Any],
        validated: Mapping[str, Any] | None,
        ran: Mapping[str, Any] | None,
    ) -> Provenance:
        """`proposed` is the model's call, `validated` the same checked with its defaults added,
        and `ran` what ran (the user's edit, else `validated`); None when nothing ran."""
        if validated is None or ran is None:
            return cls()
        filled = {
            name: value
            for name, value in validated.items()
            if name not in proposed and value is not None and ran.get(name) == value
        }
        return cls(filled, dict(validated) if dict(ran) != dict(validated) else None)
