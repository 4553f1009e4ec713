"""A tool's typed result: `ToolResult`, the base whose JSON the model reads (a page of it, when
it is long and the tool pages); and `summary_of`, how a result reads on its card.

A result type may word itself for the card with `summary() -> str` (the `Summarized` protocol):
count first, then a few names, every outside string through `hearth.shown`. Any other result
gets the generic reading here, from its type, never from its JSON: a list is counted and its
first items named, text shows its first lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

import pydantic

from hearth.display import shown
from hearth.wording import counted, singular

NAMES_SHOWN = 3
LINES_SHOWN = 3
NAME_CHARS = 60
LINE_CHARS = 300


@runtime_checkable
class Summarized(Protocol):
    """A result that words itself for its card, in a line or three."""

    def summary(self) -> str: ...


class ToolResult(pydantic.BaseModel):
    """Frozen; the fields named in `omitted_when_empty` are left out of the JSON while empty
    (None, "", [] or False), so the model reads only what it can use. Undo gets the same type
    back, even after a restart read it from disk.

    A tool whose result can be a long list takes `page: int = 1` and returns
    `Result(...).paged(page)`: the model reads that page of the JSON, cut at an item boundary
    and told how to ask for the next (`hearth.agent.pages`); the card sums up the whole.
    """

    model_config = pydantic.ConfigDict(frozen=True)
    omitted_when_empty: ClassVar[frozenset[str]] = frozenset({"note"})
    _page: int | None = pydantic.PrivateAttr(default=None)

    def paged(self, page: int) -> Self:
        """This whole result, of which the model reads page `page` (1 is the first)."""
        copy = self.model_copy()
        copy._page = max(1, page)
        return copy

    @property
    def result_page(self) -> int | None:
        """The page the model reads; None when the tool does not page its results."""
        return self._page

    @pydantic.model_serializer(mode="wrap")
    def _without_empty_notes(self, handler: pydantic.SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {
            key: value
            for key, value in data.items()
            if key not in self.omitted_when_empty or value not in (None, [], "", False)
        }


def summary_of(result: object) -> str:
    """How `result` reads on its card: its own `summary()`, else the generic reading."""
    if result is None:
        return ""
    if isinstance(result, str):
        return first_lines(result)
    summary = getattr(result, "summary", None)
    if callable(summary):  # `Summarized`; a field called `summary` is only a value
        return str(summary())
    if isinstance(result, list | tuple):
        return list_summary([name_of(item) for item in result], "item", "items")
    fields = _fields(result)
    if fields is None:
        return first_lines(str(result))
    return _fields_summary(fields)


def list_summary(names: Sequence[str], one: str, many: str) -> str:
    """The count, then the first few `names` ("60 results: a.md, b.txt, c.pdf, …"), each
    escaped as `hearth.shown` does it; "No results." when there are none."""
    if not names:
        return f"No {many}."
    shown_names = ", ".join(short(name) for name in names[:NAMES_SHOWN])
    more = ", …" if len(names) > NAMES_SHOWN else ""
    return f"{counted(len(names), one, many)}: {shown_names}{more}"


def first_lines(text: str, count: int = LINES_SHOWN) -> str:
    """The first `count` non-blank lines of `text`, escaped, each cut to LINE_CHARS; "…" when
    there is more."""
    lines = [line for line in shown(text.strip(), lines=True).split("\n") if line.strip()]
    first = [_clip(line, LINE_CHARS) for line in lines[:count]]
    return "\n".join(first) + ("\n…" if len(lines) > count else "")


def name_of(item: object) -> str:
    """What names one item of a list: its text, its own summary's first line, or its first
    non-empty text field."""
    if isinstance(item, str):
        return item
    summary = getattr(item, "summary", None)
    if callable(summary):
        return str(summary()).partition("\n")[0]
    fields = _fields(item) or []
    return next((v for _, v in fields if isinstance(v, str) and v.strip()), str(item))


def short(text: str, limit: int = NAME_CHARS) -> str:
    """`text` escaped as `hearth.shown` does it, on one line, cut to `limit` characters."""
    return _clip(shown(text), limit)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fields(result: object) -> list[tuple[str, object]] | None:
    """The named values a result holds, in order; None when it is not a record."""
    if isinstance(result, pydantic.BaseModel):
        fields = type(result).model_fields.items()
        return [(name, getattr(result, name)) for name, field in fields if not field.exclude]
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return [(field.name, getattr(result, field.name)) for field in dataclasses.fields(result)]
    if isinstance(result, Mapping):
        return [(str(key), value) for key, value in result.items()]
    return None


def _fields_summary(fields: list[tuple[str, object]]) -> str:
    """A record with one list reads as that list ("3 entries: …"); any other as its values."""
    lists = [(name, value) for name, value in fields if isinstance(value, list | tuple)]
    if len(lists) == 1:
        name, items = lists[0]
        many = name.replace("_", " ")
        names = [name_of(item) for item in items]
        return list_summary(names, singular(many), many)
    values = (f"{name}: {_value(value)}" for name, value in fields if value not in (None, ""))
    return first_lines(", ".join(values))


def _value(value: object) -> str:
    if isinstance(value, list | tuple):
        return counted(len(value), "item")
    return short(value if isinstance(value, str) else str(value))
