"""What the model reads of a tool's result: its JSON (or its text), at most RESULT_LIMIT
characters, saying what was left out.

A longer list result (a list, or the longest list in a record) is cut at item boundaries into
pages, counted from the whole result, so page 2 starts where page 1 ended. A tool that takes
`page` returns `result.paged(page)` (`ToolResult.paged`): the model reads that page and is told
how to ask for the next (the tool runs again, through the gate like any call, and returns its
whole result again).
Any other long list says how many items it left out; text, and a result with no list to cut,
is cut at the limit with the count of characters left out.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_jsonable_python

from hearth.tools import ToolResult
from hearth.wording import counted, singular

RESULT_LIMIT = 4000
NOTE_ROOM = 120  # kept free on a page for the line that says what it shows
SEPARATOR = len(", ")


def result_text(result: object) -> str:
    """The model's text of `result`: the page it names, for a paged `ToolResult`."""
    asked = result.result_page if isinstance(result, ToolResult) else None
    paged, number = asked is not None, asked or 1
    if isinstance(result, str):
        return cut(result)
    data = to_jsonable_python(result, fallback=str)
    text = _dumps(data)
    if len(text) <= RESULT_LIMIT and number == 1:
        return text
    found = _longest_list(data)
    pages = None if found is None else _pages(data, *found)
    if found is None or pages is None:
        return cut(text)
    key, items = found
    noun = key or "items"
    if number > len(pages):
        listed = counted(len(items), singular(noun), noun)
        verb = "fits" if len(items) == 1 else "fit"
        fit = f"the {listed} {verb} on {counted(len(pages), 'page')}"
        return f"{_dumps(_with(data, key, []))}\n[page {number} is past the end: {fit}]"
    start, end = pages[number - 1]
    note = f"showing {noun} {start + 1}–{end} of {len(items)}"
    if end < len(items):
        more = f"call again with page={number + 1} for more" if paged else None
        note += f"; {more}" if more else f"; the other {len(items) - end} are left out"
    return f"{_dumps(_with(data, key, items[start:end]))}\n[{note}]"


def cut(text: str) -> str:
    """`text` cut at RESULT_LIMIT characters, saying how many more there were."""
    if len(text) <= RESULT_LIMIT:
        return text
    return f"{text[:RESULT_LIMIT]}\n[... {len(text) - RESULT_LIMIT} more characters cut]"


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def _longest_list(data: Any) -> tuple[str | None, list[Any]] | None:
    """The list a page cuts: the result itself, or its record's longest list (by item count)."""
    if isinstance(data, list):
        return None, data
    if not isinstance(data, dict):
        return None
    lists = [(str(key), value) for key, value in data.items() if isinstance(value, list)]
    if not lists:
        return None
    return max(lists, key=lambda found: len(found[1]))


def _with(data: Any, key: str | None, items: list[Any]) -> Any:
    return items if key is None else {**data, key: items}


def _pages(data: Any, key: str | None, items: list[Any]) -> list[tuple[int, int]] | None:
    """Each page's (start, end) item indices; None when one item alone overfills a page."""
    budget = RESULT_LIMIT - NOTE_ROOM - len(_dumps(_with(data, key, [])))
    sizes = [len(_dumps(item)) for item in items]
    if budget <= 0 or any(size > budget for size in sizes):
        return None
    pages: list[tuple[int, int]] = []
    start, used = 0, 0
    for index, size in enumerate(sizes):
        if index > start and used + SEPARATOR + size > budget:
            pages.append((start, index))
            start, used = index, size
        else:
            used += size + (SEPARATOR if index > start else 0)
    pages.append((start, len(items)))
    return pages
