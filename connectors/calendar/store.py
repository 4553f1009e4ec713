"""Every calendar Hearth can see, readable offline, with changes queued while a server is away.

Reads come from the cache, so they work without a network; a refresh brings the cache up to
date from every source. Writes, and replaying the changes queued while a source was away, are
`replay.ChangeWriter`'s part: a change that meets someone else's edit is never forced, and
shows here as a conflict beside the server's version.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from hearth.connectors.calendar import agenda
from hearth.connectors.calendar.cache import CalendarCache, QueuedChange
from hearth.connectors.calendar.errors import CalendarError, CalendarNotFound, EventNotFound
from hearth.connectors.calendar.objects import (
    CalendarRef,
    CalendarSource,
    Occurrence,
    Problem,
    StoredObject,
)
from hearth.connectors.calendar.replay import ChangeWriter
from hearth.connectors.calendar.sync import BATCH, CalendarSync

__all__ = ["CalendarStore", "QueuedChange", "Saved", "SyncState"]


@dataclass(frozen=True)
class SyncState:
    """How one calendar's last sync went, the parts of it left out then, and what waits for it."""

    calendar: str
    kind: str
    synced_at: float | None
    online: bool
    pending: int
    conflicts: int
    error: str | None
    problems: tuple[Problem, ...] = ()
    progress: tuple[int, int] | None = None  # (objects read, of how many) while syncing


@dataclass(frozen=True)
class Saved:
    """The object as written, or as queued (`queued`) until its source can be reached."""

    object: StoredObject
    queued: bool


class CalendarStore:
    """The calendars of every source, cached in SQLite at `cache_path`; safe across threads."""

    def __init__(
        self,
        cache_path: Path,
        sources: Callable[[], Sequence[CalendarSource]],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._sources = sources
        self._clock = clock
        self._cache = CalendarCache(cache_path, now=clock(), clock=clock)
        # Held around each exchange with a source and the cache update after it, so a refresh
        # never writes back a version older than a put that ran meanwhile. Reads never take it.
        self._sync = threading.RLock()
        self._puller = CalendarSync(self._cache, self._sync, clock)
        self._writer = ChangeWriter(
            self._cache, sources, self.calendar, self._puller.pull, clock=clock
        )

    def close(self) -> None:
        """Close the cache file."""
        self._cache.close()

    # Reading, from the cache

    def calendars(self) -> list[CalendarRef]:
        """Every calendar as last seen, whether or not its source can be reached now."""
        return [cached.ref for cached in self._cache.calendars()]

    def calendar(self, name: str) -> CalendarRef:
        """The calendar called `name` (any case); CalendarNotFound lists the ones there are."""
        refs = self.calendars()
        for ref in refs:
            if ref.name.casefold() == name.casefold():
                return ref
        there = ", ".join(f"'{ref.name}'" for ref in refs) or "none yet"
        raise CalendarNotFound(f"There is no calendar called '{name}'. Calendars: {there}.")

    def objects(self, calendar: str | None = None) -> list[StoredObject]:
        """The objects as the user will see them: the cache with queued changes applied.

        An event whose queued change conflicts shows the server's version until the user
        discards their change; its later queued changes wait behind the conflict.
        """
        name = None if calendar is None else self.calendar(calendar).name
        names = {ref.name.casefold(): ref.name for ref in self.calendars()}
        return self._writer.overlay(self._cache.objects(name), names, name)

    def find(self, uid: str, calendar: str | None = None) -> StoredObject:
        """The object with this UID (in `calendar`, if given), as `objects` shows it."""
        for obj in self.objects(calendar):
            if obj.uid == uid:
                return obj
        where = f" in '{calendar}'" if calendar else ""
        raise EventNotFound(f"No event with UID '{uid}'{where}; it may have been deleted.")

    def occurrences(
        self,
        start: datetime,
        end: datetime,
        zone: ZoneInfo,
        calendar: str | None = None,
        *,
        limit: int = 10000,
        time_limit_s: float = 5.0,
    ) -> tuple[list[Occurrence], list[Problem]]:
        """The occurrences in [start, end) of every calendar (or the one named), as `objects`
        shows them, read through the time-span index (see `agenda`)."""
        name = None if calendar is None else self.calendar(calendar).name
        names = {ref.name.casefold(): ref.name for ref in self.calendars()}
        hidden = self._writer.queued_keys(names, name)
        cached = [self._cache.object(names[cal], uid) for cal, uid in hidden]
        queued = self._writer.overlay([obj for obj in cached if obj], names, name)
        return agenda.between(
            self._cache.read,
            start,
            end,
            zone,
            calendar=name,
            queued=queued,
            hidden=frozenset(hidden),
            limit=limit,
            time_limit_s=time_limit_s,
        )

    def pending(self) -> list[QueuedChange]:
        """Changes waiting for their source, oldest first."""
        return self._cache.changes("queued")

    def conflicts(self) -> list[QueuedChange]:
        """Queued changes the server refused; each keeps the user's version, oldest first."""
        return self._cache.changes("conflict")

    def problems(self, calendar: str | None = None) -> list[Problem]:
        """Parts of calendars (or of the one named) that could not be read when last synced.

        Without a name, also anything that befell the cache itself.
        """
        return self._cache.problems(None if calendar is None else self.calendar(calendar).name)

    def status(self) -> list[SyncState]:
        """Each calendar's last sync, reachability, queued and conflicting changes."""
        counts: dict[tuple[str, str], int] = {}
        for change in self._cache.changes("queued", "conflict"):
            key = (change.calendar.casefold(), change.state)
            counts[key] = counts.get(key, 0) + 1
        return [
            SyncState(
                c.ref.name,
                c.ref.source,
                c.synced_at,
                c.online,
                counts.get((c.ref.name.casefold(), "queued"), 0),
                counts.get((c.ref.name.casefold(), "conflict"), 0),
                c.last_error,
                tuple(self._cache.problems(c.ref.name)),
                c.progress,
            )
            for c in self._cache.calendars()
        ]

    # Syncing

    def refresh(self) -> list[SyncState]:
        """Bring the cache up to date from every source, then replay what each had queued.

        An unreachable source keeps its cached calendars, marked offline with the error.
        """
        seen: set[str] = set()
        unreachable: dict[str, str] = {}  # source kind -> why one of that kind failed
        for source in self._sources():
            try:
                refs = source.calendars()
            except CalendarError as error:
                unreachable.setdefault(source.kind, str(error))
                continue
            synced: set[str] = set()
            for ref in refs:
                seen.add(ref.name.casefold())
                self._writer.remember_owner(ref, source)
                if self._puller.pull(source, ref):  # it takes the lock as it goes
                    synced.add(ref.name.casefold())
            with self._sync:
                self._writer.replay(synced)
        self._settle_unseen(seen, unreachable)
        self.index()
        return self.status()

    def index(self) -> None:
        """Index the objects cached before the time-span index was (or as far ahead as it
        reaches now), a batch at a time; until then they are expanded at query time."""
        while True:
            with self._sync:
                if self._cache.reindex(BATCH) < BATCH:
                    return

    def reread(self, calendar: str) -> None:
        """Fetch one calendar from its source now, if it can be reached (before an undo)."""
        ref = self.calendar(calendar)
        try:
            source = self._writer.source_for(ref)
        except CalendarError:
            return
        self._puller.pull(source, ref)

    def replay(self) -> list[QueuedChange]:
        """Send the queued changes in order; returns them as they ended up."""
        with self._sync:
            return self._writer.replay(None)

    def discard(self, change_id: int) -> None:
        """Drop the user's queued or conflicting change (the server's version stands).

        Changes made on top of it then expect the version it was made on, so they conflict
        rather than overwrite anything.
        """
        with self._sync:
            self._writer.discard(change_id)

    # Writing

    def put(self, calendar: str, uid: str, ics: str, *, expected_etag: str | None) -> Saved:
        """Create (`expected_etag=None`) or replace that version of the event `uid`.

        Offline, the change is queued with its precondition. On Conflict the current version is
        fetched into the cache and Conflict raised; nothing is overwritten.
        """
        ref = self._writer.writable(calendar)
        with self._sync:
            obj, queued = self._writer.put(ref, uid, ics, expected_etag)
        return Saved(obj, queued)

    def delete(self, obj: StoredObject) -> Saved:
        """Delete the object if it is still that version; queued when its source is away."""
        ref = self._writer.writable(obj.calendar)
        with self._sync:
            written, queued = self._writer.delete(ref, obj)
        return Saved(written, queued)

    # Inside

    def _settle_unseen(self, seen: set[str], unreachable: dict[str, str]) -> None:
        """Calendars no source listed: offline if a source of their kind failed, else gone."""
        for cached in self._cache.calendars():
            if cached.ref.name.casefold() in seen:
                continue
            why = unreachable.get(cached.ref.source)
            if why is not None:
                self._cache.mark(cached.ref.name, online=False, error=why)
            else:
                with self._sync, self._cache.writing() as conn:
                    self._cache.forget_calendar(conn, cached.ref.name)
