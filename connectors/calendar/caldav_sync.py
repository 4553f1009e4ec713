"""What changed in a CalDAV calendar, listed without the events themselves (RFC 6578 sync, or
ETags where a server has no sync), so the events can then be fetched a batch at a time.

Given what the cache holds (`known`, href -> etag), a listing names only the objects whose
version differs: a full listing after a sync that was cut short fetches what is still missing,
not everything again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from hearth.connectors.calendar.objects import CalendarRef, Problem, StoredObject
from hearth.connectors.calendar.webdav import DAV, NAMESPACES, DavConnection, propfind

_MAX_SYNC_PAGES = 50


@dataclass(frozen=True)
class Listing:
    """What changed in a calendar since `token`, before anything is fetched.

    When `full`, the listing covers the whole calendar, which holds `listed` objects; any
    cached object not in it is in `deleted`.
    """

    fetch: list[str]  # hrefs of objects new or changed since what is known
    deleted: list[str]  # hrefs of objects gone from the server
    token: str | None  # to pass next time; None when the server cannot sync
    full: bool
    listed: int = 0


@dataclass(frozen=True)
class Changes:
    """What changed in a calendar since `token`, fetched; `changed` holds the objects."""

    changed: list[StoredObject]
    deleted: list[str]  # hrefs of objects gone from the server
    token: str | None  # to pass next time; None when the server cannot sync
    full: bool
    problems: list[Problem] = field(default_factory=list)


def sync_listing(
    connection: DavConnection,
    calendar: CalendarRef,
    since: str | None,
    known: Mapping[str, str] | None,
) -> Listing:
    """A sync-collection REPORT from `since` (None: from the start, a full listing)."""
    changed: dict[str, str | None] = {}  # href -> etag
    deleted: dict[str, None] = {}
    token = since
    for _ in range(_MAX_SYNC_PAGES):
        body = f"<d:sync-collection {NAMESPACES}><d:sync-token>{escape(token or '')}"
        body += "</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop>"
        entries, token = connection.multistatus(
            "REPORT", calendar.location, body + "</d:sync-collection>", depth="0"
        )
        truncated = False
        for entry in entries:
            if entry.href == calendar.location:
                truncated = truncated or entry.status == 507  # RFC 6578 3.6: ask again
            elif entry.status == 404:
                changed.pop(entry.href, None)
                deleted[entry.href] = None
            else:
                deleted.pop(entry.href, None)
                changed[entry.href] = entry.text(f"{DAV}getetag")
        if not truncated:
            break
    previous = known or {}
    fetch = [href for href, etag in changed.items() if etag is None or previous.get(href) != etag]
    if since is None:
        deleted.update(dict.fromkeys(href for href in previous if href not in changed))
    return Listing(fetch, list(deleted), token, since is None, len(changed))


def etag_listing(
    connection: DavConnection, calendar: CalendarRef, known: Mapping[str, str] | None
) -> Listing:
    """The calendar's ETags by PROPFIND, compared with `known`, for servers without sync."""
    body = propfind("<d:getetag/>")
    entries, _ = connection.multistatus("PROPFIND", calendar.location, body, depth="1")
    listed = {e.href: e.text(f"{DAV}getetag") for e in entries if e.href != calendar.location}
    previous = known or {}
    stale = [href for href, etag in listed.items() if previous.get(href) != etag]
    deleted = [href for href in previous if href not in listed]
    return Listing(stale, deleted, None, known is None, len(listed))
