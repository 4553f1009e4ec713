"""The WebDAV wire under the CalDAV source: requests through caldav's `DAVClient` (which
negotiates the login), multistatus replies parsed, and every failure turned into a calendar
error a user can read. Certificates are always verified; there is no insecure fallback.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import niquests
from caldav.davclient import DAVClient
from caldav.lib import error as dav_error
from caldav.response import DAVResponse

from hearth.connectors.calendar.errors import CalendarError, Offline
from hearth.connectors.calendar.objects import CalendarRef

DAV, CALDAV = "{DAV:}", "{urn:ietf:params:xml:ns:caldav}"
NAMESPACES = 'xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"'
_APPLE = "http://apple.com/ns/ical/"
_WRITE_PRIVILEGES = {f"{DAV}all", f"{DAV}write", f"{DAV}write-content", f"{DAV}bind"}
_CALENDAR_PROPS = (
    "<d:resourcetype/><d:displayname/><c:supported-calendar-component-set/>"
    f'<d:current-user-privilege-set/><a:calendar-color xmlns:a="{_APPLE}"/>'
)


class LoginFailed(CalendarError):
    """The server refused the user name and password (HTTP 401 or 403)."""


class CertificateRejected(CalendarError):
    """The server's TLS certificate did not verify; Hearth never falls back to an insecure link."""


class ReportUnsupported(CalendarError):
    """The server does not offer a REPORT Hearth asked for (such as RFC 6578 sync)."""


class SyncTokenExpired(CalendarError):
    """The server no longer knows the sync token (RFC 6578 DAV:valid-sync-token)."""


@dataclass(frozen=True)
class Entry:
    """One `DAV:response` of a multistatus: its absolute URL, status and the props found."""

    href: str
    status: int
    props: dict[str, ElementTree.Element]

    def text(self, tag: str) -> str | None:
        """The text of a found property, stripped; None when it is absent or empty."""
        prop = self.props.get(tag)
        text = "" if prop is None or prop.text is None else prop.text.strip()
        return text or None


class DavConnection:
    """One login to a CalDAV server, from the address a user typed to their calendar home."""

    def __init__(
        self, url: str, username: str, password: str, *, timeout_s: float, pinned: str = ""
    ) -> None:
        self.url = url.strip() if "://" in url else f"https://{url.strip()}"
        self._login = (username, password)
        self._pinned = pinned
        self._timeout_s = timeout_s
        self._client: DAVClient | None = None
        self._home: str | None = None

    def calendars(self) -> list[CalendarRef]:
        """Every calendar collection in the account's calendar home."""
        body = propfind(_CALENDAR_PROPS)
        entries, _ = self.multistatus("PROPFIND", self.calendar_home(), body, depth="1")
        found = []
        for entry in entries:
            kind = entry.props.get(f"{DAV}resourcetype")
            if kind is None or kind.find(f"{CALDAV}calendar") is None:
                continue
            location = entry.href if entry.href.endswith("/") else entry.href + "/"
            name = entry.text(f"{DAV}displayname") or location.rstrip("/").rsplit("/", 1)[-1]
            color = entry.text(f"{{{_APPLE}}}calendar-color")
            found.append(CalendarRef(name, "caldav", location, _writable(entry), color))
        return found

    def calendar_home(self) -> str:
        """The calendar-home-set URL, via the current-user-principal (RFC 4791, RFC 6764)."""
        if self._home is None:
            principal = self._principal()
            home = self._href_property(principal, "c:calendar-home-set")
            self._home = home or principal
        return self._home

    def multistatus(
        self, method: str, url: str, body: str, *, depth: str
    ) -> tuple[list[Entry], str | None]:
        """Send a PROPFIND or REPORT and read its 207 answer; also gives any sync-token."""
        response = self.send(method, url, body, {"Depth": depth})
        if response.status == 207:
            return parse_multistatus(response, url)
        if method == "REPORT" and "valid-sync-token" in response.raw:
            raise SyncTokenExpired("The calendar's sync state expired; it is read again in full.")
        if method == "REPORT" and response.status in (400, 403, 405, 415, 501):
            raise ReportUnsupported(f"The calendar server does not support this request at {url}.")
        raise CalendarError(
            f"The calendar server answered {response.status} {response.reason} to a {method} "
            f"of {url}; try again later, or check the account's address."
        )

    def send(self, method: str, url: str, body: str, headers: Mapping[str, str]) -> DAVResponse:
        """One request, logged in; transport and login failures become calendar errors."""
        with _translated_failures(self.url):
            return self._dav().request(url, method, body, dict(headers))

    def _principal(self) -> str:
        base = str(self._dav().url)
        for candidate in (base, urljoin(base, "/.well-known/caldav")):
            found = self._href_property(candidate, "d:current-user-principal")
            if found is not None:
                return found
        raise CalendarError(
            f"No CalDAV service was found at {self.url}; check the address in your calendar "
            "provider's instructions (it often ends in /dav/ or /caldav/)."
        )

    def _href_property(self, url: str, prop: str) -> str | None:
        response = self.send("PROPFIND", url, propfind(f"<{prop}/>"), {"Depth": "0"})
        if response.status != 207:
            return None
        prefix, name = prop.split(":")
        tag = f"{DAV if prefix == 'd' else CALDAV}{name}"
        for entry in parse_multistatus(response, url)[0]:
            found = entry.props.get(tag)
            href = None if found is None else found.findtext(f"{DAV}href")
            if href and href.strip():
                return urljoin(url, href.strip())
        return None

    def _dav(self) -> DAVClient:
        if self._client is None:
            username, password = self._login
            with _translated_failures(self.url):
                self._client = DAVClient(
                    url=self.url,
                    username=username,
                    password=password,
                    timeout=math.ceil(self._timeout_s),
                    # A pinned certificate is checked right after the handshake, before the
                    # request (and its password) is sent; anything else is verified in full.
                    ssl_verify_cert=f"sha256_{self._pinned}" if self._pinned else True,
                )
        return self._client


def parse_multistatus(response: DAVResponse, base: str) -> tuple[list[Entry], str | None]:
    """The responses of a WebDAV multistatus, hrefs made absolute against `base`."""
    try:
        root = ElementTree.fromstring(response.raw)
    except ElementTree.ParseError as reason:
        raise CalendarError(
            f"The calendar server sent a reply Hearth cannot read ({reason})."
        ) from reason
    entries = []
    for node in root.findall(f"{DAV}response"):
        props: dict[str, ElementTree.Element] = {}
        for propstat in node.findall(f"{DAV}propstat"):
            if _status_code(propstat.findtext(f"{DAV}status")) == 200:
                props.update((prop.tag, prop) for prop in propstat.findall(f"{DAV}prop/*"))
        status = node.findtext(f"{DAV}status")
        href = urljoin(base, (node.findtext(f"{DAV}href") or "").strip())
        entries.append(Entry(href, 200 if status is None else _status_code(status), props))
    return entries, root.findtext(f"{DAV}sync-token")


def propfind(props: str) -> str:
    """A PROPFIND body asking for these properties (with d: and c: prefixes bound)."""
    return f"<d:propfind {NAMESPACES}><d:prop>{props}</d:prop></d:propfind>"


def _status_code(status_line: str | None) -> int:
    parts = (status_line or "").split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def _writable(entry: Entry) -> bool:
    """False when the collection takes no events or this login may not change it."""
    components = entry.props.get(f"{CALDAV}supported-calendar-component-set")
    names = {comp.get("name", "").upper() for comp in components or []}
    if names and "VEVENT" not in names:
        return False
    privileges = entry.props.get(f"{DAV}current-user-privilege-set")
    if privileges is None:
        return True
    return bool(
        {grant.tag for grant in privileges.findall(f"{DAV}privilege/*")} & _WRITE_PRIVILEGES
    )


@contextmanager
def _translated_failures(server: str) -> Iterator[None]:
    """Turn transport and login failures into calendar errors the user can act on."""
    host = urlsplit(server).hostname or server
    try:
        yield
    except dav_error.AuthorizationError as refused:
        if "{DAV:}valid-sync-token" in refused.preconditions:
            raise SyncTokenExpired("The calendar's sync state expired.") from refused
        if "{DAV:}supported-report" in refused.preconditions:
            raise ReportUnsupported(
                "The calendar server does not support this request."
            ) from refused
        raise LoginFailed(
            f"Login to the calendar server {host} failed (HTTP {refused.status}); check the "
            "user name and password, and that this account may use the calendar.",
        ) from refused
    except niquests.exceptions.SSLError as insecure:
        if "Fingerprints did not match" in str(insecure):
            raise CertificateRejected(
                f"The certificate of {host} is not the one you trusted; no password was sent. "
                "If the server really changed its certificate, trust the new fingerprint in "
                "the settings.",
            ) from insecure
        raise CertificateRejected(
            f"The secure connection to {host} could not be verified ({_tls_reason(insecure)}); "
            "Hearth will not connect insecurely, so ask the server's owner to fix its certificate.",
        ) from insecure
    except OSError as unreachable:  # niquests' connection errors and timeouts are OSErrors
        raise Offline(
            f"The calendar server {host} could not be reached ({type(unreachable).__name__}); "
            "check the network connection and try again.",
        ) from unreachable
    except dav_error.DAVError as refused:
        raise CalendarError(
            f"The calendar server {host} refused the request: {refused.reason}."
        ) from refused


def _tls_reason(failure: Exception) -> str:
    found = re.search(r"certificate verify failed: ([^()\]'\"]+)", str(failure))
    return found.group(1).strip() if found else "the certificate is not trusted"
