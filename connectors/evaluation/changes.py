"""What changed in the environment, and whether a change (or a call) fits a pattern.

A pattern names a field to compare it, so `to = ["bob@example.com"]` means exactly those
recipients, `body_contains = "12:30"` a substring (any element, for a list), `level_min` and
`level_max` a range. Text compares case-insensitively; lists of text as sets. A field the
change lacks never matches, so a misspelt pattern fails closed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_SUFFIXES = ("_contains", "_min", "_max")


@dataclass(frozen=True)
class Change:
    """One difference between before and after: `kind` (e.g. "mail.sent") and its fields."""

    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.fields}

    def describe(self) -> str:
        shown = ", ".join(f"{key}={_short(value)}" for key, value in self.fields.items())
        return f"{self.kind}({shown})"


def matches(matchers: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    """Whether `values` satisfy every matcher (see the module's docstring)."""
    return all(_field_matches(key, wanted, values) for key, wanted in matchers.items())


def change_matches(kind: str, matchers: Mapping[str, Any], change: Change) -> bool:
    return change.kind == kind and matches(matchers, change.fields)


def assign(
    patterns: Sequence[tuple[str, Mapping[str, Any]]], changes: Sequence[Change]
) -> tuple[list[int], list[Change]]:
    """Pair each pattern with a change of its own: the indexes of the patterns left without
    one, and the changes left over. Small bipartite matching, so the order of the patterns in
    a file never decides the verdict."""
    owner: dict[int, int] = {}

    def claim(index: int, seen: set[int]) -> bool:
        kind, matchers = patterns[index]
        for spot, change in enumerate(changes):
            if spot in seen or not change_matches(kind, matchers, change):
                continue
            seen.add(spot)
            if spot not in owner or claim(owner[spot], seen):
                owner[spot] = index
                return True
        return False

    unmatched = [index for index in range(len(patterns)) if not claim(index, set())]
    left = [change for spot, change in enumerate(changes) if spot not in owner]
    return unmatched, left


def _field_matches(key: str, wanted: Any, values: Mapping[str, Any]) -> bool:
    name, test = key, "equals"
    for suffix in _SUFFIXES:
        if key.endswith(suffix) and key.removesuffix(suffix) in values:
            name, test = key.removesuffix(suffix), suffix[1:]
            break
    if name not in values:
        return False
    have = values[name]
    if test == "contains":
        needles = wanted if isinstance(wanted, list) else [wanted]
        return all(_contains(have, needle) for needle in needles)
    if test in ("min", "max"):
        if isinstance(have, bool) or not isinstance(have, int | float):
            return False
        return bool(have >= wanted if test == "min" else have <= wanted)
    return _equal(have, wanted)


def _contains(have: Any, needle: Any) -> bool:
    if isinstance(have, str):
        return str(needle).casefold() in have.casefold()
    if isinstance(have, Iterable) and not isinstance(have, Mapping):
        return any(_contains(item, needle) for item in have)
    return _equal(have, needle)


def _equal(have: Any, wanted: Any) -> bool:
    if isinstance(have, str) and isinstance(wanted, str):
        return have.strip().casefold() == wanted.strip().casefold()
    if isinstance(have, list | tuple) and isinstance(wanted, list | tuple):
        return {_folded(item) for item in have} == {_folded(item) for item in wanted}
    if isinstance(have, bool) or isinstance(wanted, bool):
        return have is wanted
    return bool(have == wanted)


def _folded(value: Any) -> Any:
    return value.strip().casefold() if isinstance(value, str) else value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
