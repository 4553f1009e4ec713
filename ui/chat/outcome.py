"""What a finished call did, in words: whether its result says more than the card's summary (the
core's `ToolRan.summary`, never guessed here from the result), the result as shown in details,
and the user's edit as "name: old → new" lines. Nothing here reads a tool's JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hearth import shown

DIFF_VALUE_CHARS = 60


def has_details(result: str, summary: str) -> bool:
    """Whether the raw result says more than its summary does."""
    return bool(result.strip()) and result.strip() != summary


def details(result: str) -> str:
    """The result as the model read it, escaped as `hearth.shown` does it."""
    return shown(result.strip(), lines=True)


def argument_diff(proposed: Mapping[str, Any], ran: Mapping[str, Any]) -> list[str]:
    """One "name: old → new" line per argument the user changed, added or removed."""
    lines = []
    for name in dict.fromkeys([*proposed, *ran]):
        old, new = proposed.get(name, _MISSING), ran.get(name, _MISSING)
        if old != new:
            lines.append(f"{shown(name)}: {_short(old)} → {_short(new)}")
    return lines


def filled_words(filled: Mapping[str, Any]) -> str:
    """The defaults Hearth added to the model's call, said as defaults, never as an edit."""
    values = ", ".join(f"{shown(name)} = {_short(value)}" for name, value in filled.items())
    return f"Filled in by Hearth: {values}" if values else ""


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


_MISSING: Any = _Missing()


def _short(value: Any) -> str:
    if value is _MISSING:
        return "(none)"
    text = shown(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return text if len(text) <= DIFF_VALUE_CHARS else text[: DIFF_VALUE_CHARS - 1] + "…"
