"""A CalDAV account set up whose password is not known this session.

It stands in the list of sources so that a sync reads the account as unreachable and keeps its
cached calendars (marked offline, with why), instead of taking them for deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.objects import CalendarRef, Problem, StoredObject


@dataclass(frozen=True)
class LockedAccount:
    """Every call fails with `why` (the account's problem, said the way the tools say it)."""

    why: str
    kind: Literal["caldav"] = "caldav"

    def calendars(self) -> list[CalendarRef]:
        raise CalendarError(self.why)

    def objects(self, calendar: CalendarRef) -> tuple[list[StoredObject], list[Problem]]:
        raise CalendarError(self.why)

    def put(
        self, calendar: CalendarRef, uid: str, ics: str, *, expected_etag: str | None
    ) -> StoredObject:
        raise CalendarError(self.why)

    def delete(self, calendar: CalendarRef, obj: StoredObject) -> None:
        raise CalendarError(self.why)
