"""What a finished call did, in words: the result summarised from its JSON shape, and the edit.

Generic on purpose: no tool is named here. A list under one key reads "3 files: a.md, b.txt, …";
a count reads "Moved 3 items" when the tool said so in its own text; anything else shows its
first lines. A result's `concerns` (what the user should know about what was read) lead.
Results quote outside text: every piece is escaped as `hearth.shown` does it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hearth import shown

NAMES_SHOWN = 3
LINES_SHOWN = 3
NAME_KEYS = ("name", "title", "subject", "path", "file", "summary", "id")
DIFF_VALUE_CHARS = 60
# A result's warnings for the user (a lookalike sender, hidden text removed) come first.
WARNING_KEY = "concerns"
WARNINGS_SHOWN = 2


def summarize(result: str) -> str:
    """A one- to three-line reading of `result` (JSON or text)."""
    text = result.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return _first_lines(text)
    if isinstance(data, list):
        return _listing(data, "items")
    if isinstance(data, Mapping):
        warned = _warnings(data.get(WARNING_KEY))
        return "\n".join(
            filter(None, [warned, _mapping(data, LINES_SHOWN - warned.count("\n") - bool(warned))])
        )
    return _first_lines(text)


def has_details(result: str, summary: str) -> bool:
    """Whether the raw result says more than its summary does."""
    return bool(result.strip()) and result.strip() != summary


def details(result: str) -> str:
    """The raw result, indented when it is JSON."""
    try:
        return shown(json.dumps(json.loads(result), ensure_ascii=False, indent=2), lines=True)
    except ValueError:
        return shown(result.strip(), lines=True)


def argument_diff(proposed: Mapping[str, Any], ran: Mapping[str, Any]) -> list[str]:
    """One "name: old → new" line per argument the user changed, added or removed."""
    lines = []
    for name in dict.fromkeys([*proposed, *ran]):
        old, new = proposed.get(name, _MISSING), ran.get(name, _MISSING)
        if old != new:
            lines.append(f"{shown(name)}: {_short(old)} → {_short(new)}")
    return lines


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


_MISSING: Any = _Missing()


def _listing(items: list[Any], noun: str) -> str:
    if not items:
        return f"No {noun} found."
    names = [_name(item) for item in items[:NAMES_SHOWN]]
    more = ", …" if len(items) > NAMES_SHOWN else ""
    return f"{len(items)} {shown(noun)}: {', '.join(names)}{more}"


def _name(item: Any) -> str:
    if isinstance(item, Mapping):
        for key in NAME_KEYS:
            if isinstance(item.get(key), str | int) and str(item[key]):
                return _short(item[key])
        return _short(next(iter(item.values()), ""))
    return _short(item)


def _short(value: Any) -> str:
    if value is _MISSING:
        return "(none)"
    text = shown(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return text if len(text) <= DIFF_VALUE_CHARS else text[: DIFF_VALUE_CHARS - 1] + "…"


def _mapping(data: Mapping[str, Any], lines: int) -> str:
    if lines <= 0:
        return ""
    message = next((v for k, v in data.items() if k in ("message", "summary", "text")), None)
    if isinstance(message, str) and message.strip():
        return _first_lines(message, lines)
    found = [(k, v) for k, v in data.items() if isinstance(v, list) and k != WARNING_KEY]
    if len(found) == 1:
        return _listing(found[0][1], str(found[0][0]).replace("_", " "))
    rest = {k: v for k, v in data.items() if k != WARNING_KEY}
    return _first_lines(", ".join(f"{shown(str(k))}: {_short(v)}" for k, v in rest.items()), lines)


def _warnings(value: object) -> str:
    if not isinstance(value, list) or not value:
        return ""
    lines = [f"⚠ {_short(item)}" for item in value[:WARNINGS_SHOWN]]
    if len(value) > WARNINGS_SHOWN:
        lines[-1] += f" (+{len(value) - WARNINGS_SHOWN} more)"
    return "\n".join(lines)


def _first_lines(text: str, count: int = LINES_SHOWN) -> str:
    lines = [line for line in shown(text, lines=True).split("\n") if line.strip()]
    first = "\n".join(lines[:count])
    return first + ("\n…" if len(lines) > count else "")
