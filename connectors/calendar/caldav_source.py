"""A CalDAV account as a CalendarSource: listing, conditional writes and sync (RFC 6578).

Every write names the version it expects (`If-None-Match: *` to create, `If-Match: <etag>` to
replace or delete), so a change made elsewhere is never overwritten: the server answers 412
and Hearth raises `Conflict`, for the caller to re-read and ask.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

import icalendar
from caldav.response import DAVResponse

from hearth.connectors.calendar.caldav_sync import Changes, Listing, etag_listing, sync_listing
from hearth.connectors.calendar.errors import (
    CalendarError,
    Conflict,
    EventNotFound,
    ReadOnlyCalendar,
)
from hearth.connectors.calendar.objects import CalendarRef, Problem, SourceKind, StoredObject
from hearth.connectors.calendar.webdav import (
    CALDAV,
    DAV,
    NAMESPACES,
    DavConnection,
    Entry,
    ReportUnsupported,
    SyncTokenExpired,
)

_SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
_OBJECT_PROPS = "<d:getetag/><c:calendar-data/>"
SYNC_TIMEOUT_S = 300.0


class CalDavSource:
    """The calendars of one CalDAV account, found from the server's bare address."""

    kind: SourceKind = "caldav"

    def __init__(
        self,
        url: str,
        username: str,
        password: str,
        *,
        pinned: str = "",
        timeout_s: float = 20.0,
    ) -> None:
        self.connection = DavConnection(url, username, password, timeout_s=timeout_s, pinned=pinned)
        # A sync runs in the background, so it waits longer for a slow server than a write the
        # user waits on: a Radicale listing 5,000 events it has not read yet takes minutes.
        patient = max(timeout_s, SYNC_TIMEOUT_S)
        self._syncing = DavConnection(url, username, password, timeout_s=patient, pinned=pinned)
        self._hrefs: dict[tuple[str, str], str] = {}  # (calendar URL, uid) -> resource URL
        self._without_sync: set[str] = set()

    def calendars(self) -> list[CalendarRef]:
        """Every calendar in the account's calendar home."""
        return self.connection.calendars()

    def objects(self, calendar: CalendarRef) -> tuple[list[StoredObject], list[Problem]]:
        """Every event object in the calendar; unreadable ones come back as problems."""
        query = _events_query(_OBJECT_PROPS)
        entries, _ = self.connection.multistatus("REPORT", calendar.location, query, depth="1")
        return self._read_objects(calendar, entries)

    def put(
        self, calendar: CalendarRef, uid: str, ics: str, *, expected_etag: str | None
    ) -> StoredObject:
        """Create the object (`expected_etag=None`) or replace exactly that version of it."""
        _require_writable(calendar)
        if expected_etag is None:
            href, condition = calendar.location + _resource_name(uid), {"If-None-Match": "*"}
        else:
            href, condition = self._href_of(calendar, uid), {"If-Match": _quoted(expected_etag)}
        headers = {"Content-Type": "text/calendar; charset=utf-8", **condition}
        response = self.connection.send("PUT", href, ics, headers)
        if response.status in (409, 412):
            raise Conflict(_conflict_message(uid, calendar, created=expected_etag is None))
        _require_success(response, f"save the event '{uid}'")
        self._hrefs[(calendar.location, uid)] = href
        etag = response.headers.get("ETag")
        if not etag or etag.startswith("W/"):
            # A weak or missing ETag cannot guard the next write; a GET gives the strong one.
            return self._fetch(calendar, uid, href)
        return StoredObject(calendar.name, uid, href, etag, ics)

    def delete(self, calendar: CalendarRef, obj: StoredObject) -> None:
        """Delete the object if it is still the version Hearth read."""
        _require_writable(calendar)
        response = self.connection.send("DELETE", obj.href, "", {"If-Match": _quoted(obj.etag)})
        if response.status == 412:
            raise Conflict(
                f"The event '{obj.uid}' changed on the server since Hearth read it; nothing was "
                "deleted. Read the calendar again and ask before deleting it."
            )
        if response.status == 404:
            raise EventNotFound(f"The event '{obj.uid}' is already gone from '{calendar.name}'.")
        _require_success(response, f"delete the event '{obj.uid}'")
        self._hrefs.pop((calendar.location, obj.uid), None)

    def listing(
        self, calendar: CalendarRef, token: str | None, known: Mapping[str, str] | None = None
    ) -> Listing:
        """What changed since `token` (RFC 6578 sync), or since `known` (href -> etag), to fetch.

        No token, or one the server forgot, gives a full listing. A server without
        sync-collection is listed by ETag. Either way only objects whose ETag differs from
        `known` are to be fetched, and `known` hrefs missing from the server are deleted.
        """
        if calendar.location not in self._without_sync:
            try:
                return sync_listing(self._syncing, calendar, token, known)
            except SyncTokenExpired:
                return sync_listing(self._syncing, calendar, None, known)
            except ReportUnsupported:
                self._without_sync.add(calendar.location)
        return etag_listing(self._syncing, calendar, known)

    def fetch(
        self, calendar: CalendarRef, hrefs: list[str]
    ) -> tuple[list[StoredObject], list[Problem], list[str]]:
        """These objects, in one request; also which of them vanished in the meantime."""
        return self._multiget(calendar, hrefs)

    def changes(
        self, calendar: CalendarRef, token: str | None, known: Mapping[str, str] | None = None
    ) -> Changes:
        """`listing`, with every object in it fetched at once."""
        listed = self.listing(calendar, token, known)
        objects, problems, gone = self._multiget(calendar, listed.fetch)
        return Changes(objects, [*listed.deleted, *gone], listed.token, listed.full, problems)

    def _multiget(
        self, calendar: CalendarRef, hrefs: list[str]
    ) -> tuple[list[StoredObject], list[Problem], list[str]]:
        """Fetch these objects in one request; also says which vanished in the meantime."""
        if not hrefs:
            return [], [], []
        paths = "".join(f"<d:href>{escape(urlsplit(href).path)}</d:href>" for href in hrefs)
        body = f"<c:calendar-multiget {NAMESPACES}><d:prop>{_OBJECT_PROPS}</d:prop>{paths}"
        entries, _ = self._syncing.multistatus(
            "REPORT", calendar.location, body + "</c:calendar-multiget>", depth="1"
        )
        objects, problems = self._read_objects(calendar, [e for e in entries if e.status != 404])
        return objects, problems, [e.href for e in entries if e.status == 404]

    def _read_objects(
        self, calendar: CalendarRef, entries: list[Entry]
    ) -> tuple[list[StoredObject], list[Problem]]:
        objects: list[StoredObject] = []
        problems: list[Problem] = []
        for entry in entries:
            if entry.href == calendar.location:
                continue
            data = entry.props.get(f"{CALDAV}calendar-data")
            etag, ics = entry.text(f"{DAV}getetag"), None if data is None else data.text
            found = read_object(calendar.name, entry.href, etag, ics)
            if isinstance(found, StoredObject):
                objects.append(found)
                self._hrefs[(calendar.location, found.uid)] = found.href
            elif found is not None:
                problems.append(found)
        return objects, problems

    def _href_of(self, calendar: CalendarRef, uid: str) -> str:
        """Where the object with this UID lives: other clients choose their own names."""
        cached = self._hrefs.get((calendar.location, uid))
        if cached is not None:
            return cached
        match = f'<c:text-match collation="i;octet">{escape(uid)}</c:text-match>'
        query = _events_query("<d:getetag/>", f'<c:prop-filter name="UID">{match}</c:prop-filter>')
        entries, _ = self.connection.multistatus("REPORT", calendar.location, query, depth="1")
        for entry in entries:
            if entry.href != calendar.location:
                return entry.href
        raise Conflict(
            f"The event '{uid}' was deleted from '{calendar.name}' on the server since Hearth "
            "read it; nothing was written. Read the calendar again and ask what to do."
        )

    def _fetch(self, calendar: CalendarRef, uid: str, href: str) -> StoredObject:
        response = self.connection.send("GET", href, "", {"Accept": "text/calendar"})
        _require_success(response, f"read back the event '{uid}'")
        etag = response.headers.get("ETag")
        if not etag:
            raise CalendarError(
                f"The server saved the event '{uid}' but gave it no version tag (ETag), so "
                "Hearth cannot change it safely later; this server is not supported."
            )
        return StoredObject(calendar.name, uid, href, etag, response.raw)


def read_object(
    calendar: str, href: str, etag: str | None, ics: str | None
) -> StoredObject | Problem | None:
    """The stored object in one resource, a problem if it cannot be read, None if no event."""

    def problem(message: str) -> Problem:
        return Problem(where=href, line=None, component="VCALENDAR", message=message)

    if not ics:
        return problem("the server sent no calendar data for it")
    try:
        parsed = icalendar.Calendar.from_ical(ics)
    except ValueError as reason:  # what icalendar raises for text it cannot read at all
        return problem(f"it is not readable as a calendar ({reason})")
    if parsed.name != "VCALENDAR":
        return problem(f"it holds a bare {parsed.name} instead of a VCALENDAR")
    events = parsed.walk("VEVENT")
    if not events:
        return None
    uids = {str(event.get("UID", "")).strip() for event in events}
    if len(uids) != 1 or "" in uids:
        return problem("its events do not share exactly one UID, as CalDAV requires")
    if not etag:
        return problem("the server gave it no version tag (ETag), so it cannot be changed safely")
    return StoredObject(calendar=calendar, uid=uids.pop(), href=href, etag=etag, ics=ics)


def _events_query(props: str, inside_event: str = "") -> str:
    """A calendar-query for objects holding a VEVENT, narrowed by filters inside the VEVENT."""
    event = f'<c:comp-filter name="VEVENT">{inside_event}</c:comp-filter>'
    return (
        f"<c:calendar-query {NAMESPACES}><d:prop>{props}</d:prop><c:filter>"
        f'<c:comp-filter name="VCALENDAR">{event}</c:comp-filter></c:filter></c:calendar-query>'
    )


def _resource_name(uid: str) -> str:
    """A file name for a new object; a UID with characters URLs dislike is hashed instead."""
    if _SAFE_NAME.fullmatch(uid):
        return f"{uid}.ics"
    return hashlib.sha256(uid.encode()).hexdigest() + ".ics"


def _quoted(etag: str) -> str:
    return etag if etag.startswith(('"', "W/")) else f'"{etag}"'


def _require_writable(calendar: CalendarRef) -> None:
    if not calendar.writable:
        raise ReadOnlyCalendar(f"The calendar '{calendar.name}' cannot be changed by this login.")


def _require_success(response: DAVResponse, doing: str) -> None:
    if not 200 <= response.status < 300:
        raise CalendarError(
            f"The calendar server could not {doing}: it answered {response.status} "
            f"{response.reason}."
        )


def _conflict_message(uid: str, calendar: CalendarRef, *, created: bool) -> str:
    if created:
        return (
            f"An event with the id '{uid}' already exists in '{calendar.name}'; nothing was "
            "overwritten. Read the calendar again to see it."
        )
    return (
        f"The event '{uid}' changed on the server since Hearth read it; nothing was "
        "overwritten. Read it again and ask before changing it."
    )
