"""Bringing one calendar of the cache up to date from its source, a batch of objects at a time.

Each batch is fetched (CalDAV: one calendar-multiget), indexed and stored in a transaction of
its own, and the calendar's progress noted beside it. Listings read what is there meanwhile and
say the calendar is still syncing; a sync cut short (the server went away, Hearth was closed)
keeps what it stored, and the next one fetches only what is still missing. The sync token is
kept only once every batch is in, so an unfinished sync is never taken for a finished one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from hearth.connectors.calendar.cache import CalendarCache
from hearth.connectors.calendar.errors import CalendarError, Conflict
from hearth.connectors.calendar.instances import index_object
from hearth.connectors.calendar.objects import CalendarRef, CalendarSource, Problem, StoredObject

BATCH = 200  # objects per request and per transaction
_T = TypeVar("_T")


class Listing(Protocol):
    """What changed in a calendar, before it is fetched (see `caldav_sync.Listing`)."""

    @property
    def fetch(self) -> list[str]: ...
    @property
    def deleted(self) -> list[str]: ...
    @property
    def token(self) -> str | None: ...
    @property
    def full(self) -> bool: ...
    @property
    def listed(self) -> int: ...


@runtime_checkable
class ChangeFeed(Protocol):
    """A source that can say what changed since a sync token (CalDAV, RFC 6578)."""

    def listing(
        self, calendar: CalendarRef, token: str | None, known: Mapping[str, str] | None = None
    ) -> Listing: ...

    def fetch(
        self, calendar: CalendarRef, hrefs: list[str]
    ) -> tuple[list[StoredObject], list[Problem], list[str]]: ...


class CalendarSync:
    """Pulls calendars from their sources into `cache`.

    `lock` is held around each exchange with a source and the cache update after it, so a
    pull never writes back a version older than a write that ran meanwhile. A CalDAV pull
    takes it a batch at a time, so a write need not wait for a long first sync to end.
    """

    def __init__(
        self,
        cache: CalendarCache,
        lock: threading.RLock,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache = cache
        self._lock = lock
        self._clock = clock

    def pull(self, source: CalendarSource, ref: CalendarRef) -> bool:
        """Fetch what changed in one calendar into the cache; False when it could not be read
        (what was stored before the failure stays)."""
        cached = {c.ref.name.casefold(): c for c in self._cache.calendars()}.get(
            ref.name.casefold()
        )
        token = cached.sync_token if cached is not None and cached.ref == ref else None
        try:
            if isinstance(source, ChangeFeed):
                first = cached is None or cached.synced_at is None
                self._from_feed(ref, source, token, first=first)
            else:
                with self._lock:  # a file is read whole and fast: one exchange
                    objects, problems = source.objects(ref)
                    self._from_listing(ref, objects, problems, unchanged=cached is not None)
        except CalendarError as error:
            with self._cache.writing() as conn:
                self._cache.save_calendar(conn, ref)
            self._cache.mark(ref.name, online=False, error=str(error))
            return False
        return True

    def _from_feed(
        self, ref: CalendarRef, source: ChangeFeed, token: str | None, *, first: bool
    ) -> None:
        if first:  # listings say the calendar is syncing while the server lists it
            with self._lock, self._cache.writing() as conn:
                self._cache.save_calendar(conn, ref)
                self._cache.progress(conn, ref.name, 0, 0)
        known = self._cache.known(ref.name)
        try:
            listing = source.listing(ref, token, known)
        except Conflict:
            if token is None:
                raise
            listing = source.listing(ref, None, known)  # the token expired: list everything
        total = listing.listed if listing.full else len(listing.fetch)
        done = total - len(listing.fetch)
        # Writes are not held back while the server lists (that can take minutes). The one a
        # listing can miss, an event deleted elsewhere and made again here meanwhile, leaves the
        # cache until the next sync lists it as new.
        with self._lock, self._cache.writing() as conn:
            self._cache.save_calendar(conn, ref)
            for href in listing.deleted:
                self._cache.drop_objects(conn, ref.name, href=href)
            if listing.fetch:
                self._cache.progress(conn, ref.name, done, total)
        problems: list[Problem] = []
        for batch in _batches(listing.fetch):
            with self._lock:
                objects, unread, gone = source.fetch(ref, list(batch))
                stored = {obj.href for obj in objects}
                # In a full listing, an object that no longer reads as an event leaves the cache.
                dropped = [href for href in batch if href not in stored] if listing.full else gone
                done += len(batch)
                self._store(ref, objects, dropped, done, total)
            problems.extend(unread)
        with self._lock, self._cache.writing() as conn:
            if listing.full:
                self._cache.set_problems(conn, ref.name, problems)
            self._cache.synced(conn, ref.name, listing.token, self._clock())

    def _from_listing(
        self,
        ref: CalendarRef,
        objects: list[StoredObject],
        problems: list[Problem],
        *,
        unchanged: bool,
    ) -> None:
        """Store a source's whole listing: new and changed texts indexed a batch at a time,
        objects whose text is the same only given their new etag."""
        cached = {obj.uid: obj for obj in self._cache.objects(ref.name)}
        before = {(o.uid, o.href, o.etag) for o in cached.values()}
        if unchanged and before == {(o.uid, o.href, o.etag) for o in objects}:
            with self._cache.writing() as conn:  # an unchanged file is not written again
                self._cache.save_calendar(conn, ref)
                self._cache.synced(conn, ref.name, None, self._clock())
            return
        listed = {obj.uid for obj in objects}
        same = [o for o in objects if o.uid in cached and cached[o.uid].ics == o.ics]
        changed = [o for o in objects if o.uid not in cached or cached[o.uid].ics != o.ics]
        done, total = len(same), len(objects)
        with self._cache.writing() as conn:
            self._cache.save_calendar(conn, ref)
            for uid in cached:
                if uid not in listed:
                    self._cache.drop_objects(conn, ref.name, uid=uid)
            for obj in same:
                self._cache.retag(conn, obj)
            if changed:
                self._cache.progress(conn, ref.name, done, total)
        for batch in _batches(changed):
            done += len(batch)
            self._store(ref, batch, [], done, total)
        with self._cache.writing() as conn:
            self._cache.set_problems(conn, ref.name, problems)
            self._cache.synced(conn, ref.name, None, self._clock())

    def _store(
        self,
        ref: CalendarRef,
        objects: Sequence[StoredObject],
        dropped: Sequence[str],
        done: int,
        total: int,
    ) -> None:
        """One batch: indexed first, then written with the progress in one transaction."""
        now = self._clock()
        indexed = [(obj, index_object(obj.ics, now)) for obj in objects]
        with self._cache.writing() as conn:
            for href in dropped:
                self._cache.drop_objects(conn, ref.name, href=href)
            for obj, index in indexed:
                self._cache.store_object(conn, obj, index)
            self._cache.progress(conn, ref.name, done, total)


def _batches(items: Sequence[_T]) -> Iterator[Sequence[_T]]:
    for first in range(0, len(items), BATCH):
        yield items[first : first + BATCH]
