"""A calendar connector over a real Radicale account and real ICS files, and helpers to drive
it through the agent with a scripted model."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from zoneinfo import ZoneInfo

import caldav

from hearth import Connector, hookimpl
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer

BERLIN = ZoneInfo("Europe/Berlin")
TODAY = date(2026, 12, 1)  # a Tuesday
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=BERLIN)


class CalendarPlugin:
    def __init__(self, connector: CalendarConnector) -> None:
        self.connector = connector

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(self.connector)


def other_client(server: RadicaleServer) -> caldav.DAVClient:
    """A second client, as another device of the same user would be."""
    return caldav.DAVClient(url=server.url, username=USER, password=PASSWORD)


def server_calendar(server: RadicaleServer, name: str) -> caldav.Calendar:
    principal = other_client(server).principal()
    for calendar in principal.calendars():
        if calendar.get_display_name() == name:
            return calendar
    return principal.make_calendar(name=name)


def event_ics(uid: str, title: str, start: str, end: str, extra: str = "") -> str:
    """One VEVENT in Europe/Berlin, as another client would write it."""
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Other//Client//EN\r\n"
        "BEGIN:VEVENT\r\n"
        f"UID:{uid}\r\nDTSTAMP:20261101T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        f"SUMMARY:{title}\r\n{extra}"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
