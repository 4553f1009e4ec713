"""What the calendar tools return: typed results whose JSON the model reads, each worded for its
card by `summary` (escaped as `hearth.shown` does it)."""

from __future__ import annotations

from typing import Any, Literal

import pydantic

from hearth import ToolResult, list_summary, shown


class Result(ToolResult):
    """Base of the calendar results: frozen, and optional fields omitted while empty."""

    omitted_when_empty = frozenset(
        {
            "note",
            "location",
            "description",
            "attendees",
            "occurrence",
            "rule",
            "queued",
            "problems",
            "written",
        }
    )


class EventItem(Result):
    """One event (or one occurrence of a recurring one), times in the user's zone.

    `id` names the event for the change tools; `occurrence` names this instance of a series.
    """

    id: str
    calendar: str
    title: str
    start: str
    end: str
    all_day: bool = False
    occurrence: str | None = None
    location: str = ""
    description: str = ""
    attendees: list[str] = pydantic.Field(default_factory=list)

    def summary(self) -> str:
        return f"{self.title} ({self.start})"


class EventList(Result):
    """Events in a range; `problems` names each part of the calendars left out, with its line."""

    events: list[EventItem]
    time_zone: str
    note: str | None = None
    problems: list[str] = pydantic.Field(default_factory=list)

    def summary(self) -> str:
        events = list_summary([event.summary() for event in self.events], "event", "events")
        return _with_problems(events, self.problems)


class Period(Result):
    start: str
    end: str

    def summary(self) -> str:
        return f"{self.start}–{self.end}"


class FreeBusy(Result):
    busy: list[Period]
    time_zone: str
    note: str | None = None
    problems: list[str] = pydantic.Field(default_factory=list)

    def summary(self) -> str:
        busy = list_summary([period.summary() for period in self.busy], "busy time", "busy times")
        return _with_problems(busy, self.problems)


class FreeSlots(Result):
    slots: list[Period]
    time_zone: str
    note: str | None = None
    problems: list[str] = pydantic.Field(default_factory=list)

    def summary(self) -> str:
        free = list_summary([slot.summary() for slot in self.slots], "free time", "free times")
        return _with_problems(free, self.problems)


class Changed(Result):
    """A change made (or queued while offline): `change` names it for undo.

    A create cut short (Hearth killed mid-call) leaves only the step it journaled before its
    write, `{"created": [step]}`; undo gets it back as this type, with `written`, the
    fingerprint of the event as written, to tell whether the event was changed since.
    """

    action: Literal["created", "updated", "deleted"]
    id: str
    calendar: str
    title: str
    change: str
    occurrence: str | None = None
    queued: bool = False
    note: str | None = None
    written: str | None = None

    def summary(self) -> str:
        queued = " (queued: it is sent when the calendar can be reached)" if self.queued else ""
        return f"{self.action.capitalize()} {shown(self.title)!r} in {shown(self.calendar)}{queued}"

    @pydantic.model_validator(mode="before")
    @classmethod
    def _from_journal(cls, data: Any) -> Any:
        if isinstance(data, dict) and "action" not in data and data.get("created"):
            return {"action": "created", **data["created"][-1]}
        return data


def _with_problems(summary: str, problems: list[str]) -> str:
    """The summary, then a warning line when part of the calendars could not be read."""
    if not problems:
        return summary
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{summary}\n⚠ Left out: {shown(problems[0])}{more}"
