"""Counted nouns agree with their counts wherever Hearth says how many."""

from __future__ import annotations

import dataclasses

import pytest

from hearth import counted, summary_of
from hearth.wording import singular


@pytest.mark.parametrize(
    ("count", "one", "many", "said"),
    [
        (1, "calendar", None, "1 calendar"),
        (0, "calendar", None, "0 calendars"),
        (2, "calendar", None, "2 calendars"),
        (1, "entry", "entries", "1 entry"),
        (1200, "entry", "entries", "1,200 entries"),
    ],
)
def test_the_noun_agrees_with_the_count(count: int, one: str, many: str | None, said: str) -> None:
    assert counted(count, one, many) == said


@pytest.mark.parametrize(
    ("plural", "one"),
    [
        ("results", "result"),
        ("entries", "entry"),
        ("matches", "match"),
        ("boxes", "box"),
        ("addresses", "address"),
        ("granted folders", "granted folder"),
    ],
)
def test_a_list_field_names_one_of_its_items(plural: str, one: str) -> None:
    assert singular(plural) == one


def test_a_record_of_lists_counts_each_list_in_agreement() -> None:
    @dataclasses.dataclass
    class Found:
        files: list[str]
        folders: list[str]

    assert summary_of(Found(["a.md"], ["Documents", "Music"])) == "files: 1 item, folders: 2 items"
