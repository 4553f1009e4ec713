"""The calendar connector: local ICS files and a CalDAV account, their tools, `hearth calendar`.

One `CalendarConnector` per plugin load, made in the plugin's hook; it owns its
`CalendarLibrary` (settings, sources, the offline store and its sync) and its change log.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import click

from hearth import Connector, counted, data_dir
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.library import NAME, CalendarLibrary
from hearth.connectors.calendar.reading import ReadingTools
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.calendar.status import overview
from hearth.connectors.calendar.writing import WritingTools

CHANGES_FILE = Path("calendar") / "changes.sqlite"


class CalendarConnector(ReadingTools, WritingTools, Connector):
    """Read and change the user's calendars; invitations are judged as sends."""

    name = NAME
    title = "Calendar"
    description = "Your calendars from .ics files and a CalDAV server, readable offline."
    keywords = (
        "calendar",
        "calendars",
        "event",
        "events",
        "meeting",
        "appointment",
        "agenda",
        "schedule",
        "free",
        "busy",
        "today",
        "tomorrow",
        "week",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    )
    settings = CalendarSettings
    # Every calendar tool's scope argument names a calendar.
    scope_kind = "calendar"

    def __init__(
        self, library: CalendarLibrary | None = None, changes: ChangeLog | None = None
    ) -> None:
        super().__init__()
        self.library = library or CalendarLibrary()
        self.changes = changes or ChangeLog(data_dir() / CHANGES_FILE)

    def canonical_resource(self, name: str) -> str:
        """A calendar named as the store names it, whatever case the call used; a name that
        is no calendar is refused before anyone is asked."""
        return self.library.store.calendar(name).name if name else name

    def test_connection(self, settings: CalendarSettings) -> str:
        """Log in to the CalDAV server and find its calendars; raises saying what failed."""
        if not settings.server:
            return "No CalDAV server is set; calendar files need no connection."
        password = settings.password.get_secret_value() if settings.password else ""
        # Imported here: caldav's HTTP stack would slow every start of Hearth.
        from hearth.connectors.calendar.discovery import check_connection

        found = check_connection(
            settings.server, settings.username, password, pinned=settings.trusted_certificate
        )
        return f"Connected: {counted(len(found), 'calendar')} ({', '.join(c.name for c in found)})."

    def status_line(self) -> str | None:
        line = overview(self.library.store.status(), self.library.missing_files(), time.time())
        problem = self.library.account_problem()
        return (
            "; ".join(
                part for part in (line, problem and problem[:1].upper() + problem[1:]) if part
            )
            or None
        )

    def commands(self) -> Iterable[click.Command]:
        # Here, not at the top: only `hearth calendar` needs it, never the window or a turn.
        from hearth.connectors.calendar.cli import calendar_commands

        return [calendar_commands(self.library)]

    def settings_saved(self) -> None:
        self.library.sync_soon()

    def start(self) -> None:
        self.library.start()

    def stop(self) -> None:
        self.library.stop()
