"""What goes wrong in the calendar connector, worded for the model or the user who reads it."""

from __future__ import annotations

from hearth import CertificateNotTrusted, ToolFailure
from hearth import spaced_fingerprint as spaced


class CalendarError(ToolFailure):
    """A calendar tool could not do what was asked; the message says why."""


class CalendarNotFound(CalendarError):
    """No calendar Hearth can see has that name."""


class EventNotFound(CalendarError):
    """No event with that id is in the calendar (any more)."""


class ReadOnlyCalendar(CalendarError):
    """The calendar can be read but not changed (a subscribed feed, a file Hearth may not write)."""


class Conflict(CalendarError):
    """The event or file changed elsewhere since Hearth read it; nothing was overwritten.

    The caller re-reads and asks the user; Hearth never retries over someone else's change.
    """


class Offline(CalendarError):
    """The server could not be reached; the change waits in the offline queue or was not made."""


class BadCalendarData(CalendarError):
    """ICS text that cannot be read at all (not a calendar, too large, too slow to parse)."""


class ConnectionProblem(CalendarError):
    """`test_connection` found a problem; `stage` says where: dns, tcp, tls, auth, calendars."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(message)
        self.stage = stage


class UntrustedCertificate(ConnectionProblem, CertificateNotTrusted):
    """The server's certificate was refused; trusting `fingerprint` would pass it."""

    setting = "trusted_certificate"

    def __init__(self, refusal: str, fingerprint: str) -> None:
        super().__init__("tls", f"{refusal} Its SHA-256 fingerprint is {spaced(fingerprint)}.")
        self.refusal, self.fingerprint = refusal, fingerprint
