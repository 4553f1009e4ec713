"""Counted nouns in what Hearth says: "1 calendar", "3 calendars", never "1 calendars"."""

from __future__ import annotations

_SIBILANT_PLURALS = ("sses", "shes", "ches", "xes", "zes")


def counted(count: int, one: str, many: str | None = None) -> str:
    """`count` with the noun that agrees with it: `one` for exactly 1, else `many` (by default
    `one` + "s"): "1 calendar", "0 calendars", "1,200 entries"."""
    noun = one if count == 1 else (many if many is not None else one + "s")
    return f"{count:,} {noun}"


def singular(plural: str) -> str:
    """The singular of a plural noun as a field names a list ("entries", "matches", "results")."""
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    if plural.endswith(_SIBILANT_PLURALS):
        return plural[:-2]
    if plural.endswith("s") and not plural.endswith("ss"):
        return plural[:-1]
    return plural
