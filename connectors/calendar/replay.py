"""Writing through to calendar sources, and replaying the changes queued while they were away.

A write goes to its source with its precondition (If-Match / If-None-Match); when the source is
unreachable the change is queued with that same precondition and replayed in order later. A
change that meets someone else's edit is never forced: it is kept in the queue as a conflict,
with the server's version fetched into the cache beside it, and later changes to that event
wait behind it. A change made on a queued version expects `queued-<id>`, which becomes the etag
that change produced once it goes through (or the etag it was made on, if it is discarded).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence

from hearth.connectors.calendar.cache import CalendarCache, QueuedChange
from hearth.connectors.calendar.errors import (
    BadCalendarData,
    CalendarError,
    CalendarNotFound,
    Conflict,
    EventNotFound,
    Offline,
    ReadOnlyCalendar,
)
from hearth.connectors.calendar.objects import CalendarRef, CalendarSource, StoredObject

QUEUED_ETAG = "queued-"  # etag prefix of a version that exists only in the queue so far

# The change can never go through as it is; anything else (offline, a login refused) may pass.
_REFUSED = (Conflict, EventNotFound, BadCalendarData, ReadOnlyCalendar, CalendarNotFound)

Written = tuple[StoredObject, bool]  # the object as written or queued, and whether it was queued


def event_key(change: QueuedChange) -> tuple[str, str]:
    """The event a queued change is about: its calendar (casefolded) and UID."""
    return change.calendar.casefold(), change.uid


class ChangeWriter:
    """Sends `CalendarStore`'s writes to their sources, or queues them; callers hold its lock.

    `calendar` finds a calendar by name and `pull` fetches one calendar into the cache (False
    when it could not be read); both are the store's.
    """

    def __init__(
        self,
        cache: CalendarCache,
        sources: Callable[[], Sequence[CalendarSource]],
        calendar: Callable[[str], CalendarRef],
        pull: Callable[[CalendarSource, CalendarRef], bool],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache = cache
        self._sources = sources
        self._calendar = calendar
        self._pull = pull
        self._clock = clock
        self._owners: dict[str, CalendarSource] = {}  # casefolded name -> source listing it

    def remember_owner(self, ref: CalendarRef, source: CalendarSource) -> None:
        """Note that `source` listed the calendar, so writes to it go there first."""
        self._owners[ref.name.casefold()] = source

    def writable(self, name: str) -> CalendarRef:
        """The calendar called `name`; ReadOnlyCalendar when it cannot be written."""
        ref = self._calendar(name)
        if not ref.writable:
            raise ReadOnlyCalendar(f"The calendar '{ref.name}' is read-only; nothing was changed.")
        return ref

    def overlay(
        self, cached: list[StoredObject], names: Mapping[str, str], calendar: str | None
    ) -> list[StoredObject]:
        """The `cached` objects (of `calendar`, or all) with the queued changes applied.

        `names` spells each known calendar by its casefolded name; changes to others are left
        out. An event with a conflicting change keeps the server's version, and its later
        changes wait behind the conflict.
        """
        view = {(o.calendar.casefold(), o.uid): o for o in cached}
        shown = self.queued_keys(names, calendar)
        for change in self._cache.changes("queued", calendar=calendar):
            key = event_key(change)
            if key not in shown:
                continue
            if change.op == "delete":
                view.pop(key, None)
                continue
            base = view.get(key)
            href = base.href if base is not None else ""
            view[key] = StoredObject(
                names[key[0]], change.uid, href, f"{QUEUED_ETAG}{change.id}", change.ics or ""
            )
        return sorted(view.values(), key=lambda o: (o.calendar.casefold(), o.uid))

    def queued_keys(self, names: Mapping[str, str], calendar: str | None) -> set[tuple[str, str]]:
        """The events (casefolded calendar, UID) that `overlay` shows as queued changes make
        them: those of known calendars whose changes do not wait behind a conflict."""
        blocked = {event_key(c) for c in self._cache.changes("conflict", calendar=calendar)}
        return {
            event_key(change)
            for change in self._cache.changes("queued", calendar=calendar)
            if event_key(change) not in blocked and change.calendar.casefold() in names
        }

    def put(self, ref: CalendarRef, uid: str, ics: str, expected_etag: str | None) -> Written:
        """Create (`expected_etag=None`) or replace that version of the event; see `store`."""
        expected = self._resolve(expected_etag)
        if self._behind_queue(ref, uid, expected):
            return self._queue("put", ref, uid, ics, expected, try_now=True)
        try:
            source = self.source_for(ref)
            obj = source.put(ref, uid, ics, expected_etag=expected)
        except Offline as error:
            self._cache.mark(ref.name, online=False, error=str(error))
            return self._queue("put", ref, uid, ics, expected, try_now=False)
        except (Conflict, EventNotFound):
            self._refetch(ref)
            raise
        self._written(source, ref, obj, None)
        return obj, False

    def delete(self, ref: CalendarRef, obj: StoredObject) -> Written:
        """Delete the object if it is still that version; queued when its source is away."""
        expected = self._resolve(obj.etag)
        if self._behind_queue(ref, obj.uid, expected):
            return self._queue("delete", ref, obj.uid, None, expected, obj, try_now=True)
        try:
            source = self.source_for(ref)
            source.delete(ref, obj)
        except Offline as error:
            self._cache.mark(ref.name, online=False, error=str(error))
            return self._queue("delete", ref, obj.uid, None, expected, obj, try_now=False)
        except (Conflict, EventNotFound):
            self._refetch(ref)
            raise
        self._written(source, ref, None, obj.uid)
        return obj, False

    def replay(self, only: set[str] | None) -> list[QueuedChange]:
        """Send the queued changes (of the casefolded calendars `only`, if given) in order."""
        done: list[QueuedChange] = []
        stopped: set[str] = set()  # calendars whose source could not be reached
        waiting = {event_key(c) for c in self._cache.changes("conflict")}
        for listed in self._cache.changes("queued"):
            # Read again: a change sent before this one may have rebased its precondition.
            change = self._cache.change(listed.id)
            if change is None or change.state != "queued":
                continue
            name = change.calendar.casefold()
            if (only is not None and name not in only) or name in stopped:
                continue
            if event_key(change) not in waiting and not self._send(change):
                stopped.add(name)
            after = self._cache.change(change.id)
            if after is not None:
                if after.state != "done":
                    waiting.add(event_key(after))
                done.append(after)
        return done

    def discard(self, change_id: int) -> None:
        """Drop an open change; those made on top of it then expect the version it was made on."""
        change = self._cache.change(change_id)
        if change is None or change.state == "done":
            raise CalendarError(f"There is no open queued change {change_id}.")
        with self._cache.writing() as conn:
            self._cache.settle(conn, change, "done", "discarded by the user")
            self._cache.rebase(conn, change, change.expected_etag)

    def source_for(self, ref: CalendarRef) -> CalendarSource:
        """The source holding the calendar; Offline when none that could hold it answers."""
        sources = list(self._sources())
        owner = self._owners.get(ref.name.casefold())
        if owner is not None and any(source is owner for source in sources):
            return owner
        away: Offline | None = None
        for source in sources:
            if source.kind != ref.source:
                continue
            try:
                refs = source.calendars()
            except Offline as error:
                away = error
                continue
            if any(found.location == ref.location for found in refs):
                self.remember_owner(ref, source)
                return source
        if away is not None:
            raise away
        raise CalendarNotFound(f"The calendar '{ref.name}' is no longer in any calendar source.")

    def _send(self, change: QueuedChange) -> bool:
        """Send one queued change and record how it went; False when the source is away."""
        try:
            ref = self._calendar(change.calendar)
            source = self.source_for(ref)
            obj = self._send_to(source, ref, change)
        except _REFUSED as error:
            with self._cache.writing() as conn:
                self._cache.settle(conn, change, "conflict", str(error))
            self._refetch_named(change.calendar)
            return True
        except CalendarError as error:
            self._cache.mark(change.calendar, online=False, error=str(error))
            return False
        self._written(source, ref, obj, change.uid if obj is None else None, change)
        return True

    def _send_to(
        self, source: CalendarSource, ref: CalendarRef, change: QueuedChange
    ) -> StoredObject | None:
        if change.op == "put":
            return source.put(ref, change.uid, change.ics or "", expected_etag=change.expected_etag)
        current = self._cache.object(ref.name, change.uid)
        if current is None:
            return None  # gone from the server already: what the user wanted
        with contextlib.suppress(EventNotFound):  # gone meanwhile: what the user wanted
            obj = StoredObject(ref.name, change.uid, current.href, change.expected_etag or "", "")
            source.delete(ref, obj)
        return None

    def _written(
        self,
        source: CalendarSource,
        ref: CalendarRef,
        obj: StoredObject | None,
        deleted_uid: str | None,
        change: QueuedChange | None = None,
    ) -> None:
        """Record a write the source accepted (and the queued change it settles)."""
        with self._cache.writing() as conn:
            if obj is not None:
                self._cache.store_object(conn, obj)
            if deleted_uid is not None:
                self._cache.drop_objects(conn, ref.name, uid=deleted_uid)
            if change is not None:
                etag = None if obj is None else obj.etag
                self._cache.settle(conn, change, "done", None, etag)
                self._cache.rebase(conn, change, etag)
        if ref.source == "ics":
            self._pull(source, ref)  # a file's etag is the whole file's: every event's changed

    def _refetch(self, ref: CalendarRef) -> None:
        """Fetch the calendar's current state after a conflict, so the user sees theirs."""
        try:
            source = self.source_for(ref)
        except CalendarError:
            return
        self._pull(source, ref)

    def _refetch_named(self, name: str) -> None:
        try:
            self._refetch(self._calendar(name))
        except CalendarNotFound:
            return

    def _resolve(self, etag: str | None) -> str | None:
        """A `queued-<id>` etag whose change went through becomes the etag it produced."""
        if etag is None or not etag.startswith(QUEUED_ETAG):
            return etag
        change = self._cache.change(int(etag.removeprefix(QUEUED_ETAG) or 0))
        if change is None or (change.state == "done" and change.result_etag is None):
            raise Conflict("That queued version was discarded; read the event again.")
        return change.result_etag if change.state == "done" else etag

    def _behind_queue(self, ref: CalendarRef, uid: str, expected: str | None) -> bool:
        """Whether earlier changes to this event still wait, so this one must wait behind."""
        if expected is not None and expected.startswith(QUEUED_ETAG):
            return True
        key = (ref.name.casefold(), uid)
        # A conflict does not hold back a write made on the server's version: that resolves it.
        return any(event_key(c) == key for c in self._cache.changes("queued"))

    def _queue(
        self,
        op: str,
        ref: CalendarRef,
        uid: str,
        ics: str | None,
        expected: str | None,
        deleted: StoredObject | None = None,
        *,
        try_now: bool,
    ) -> Written:
        """Queue a change; with `try_now`, replay the calendar's queue at once (it may be up)."""
        change_id = self._cache.enqueue(op, ref.name, uid, ics, expected, self._clock())
        if try_now:
            self.replay({ref.name.casefold()})
        after = self._cache.change(change_id)
        if after is not None and after.state == "done":
            went = deleted if deleted is not None else self._cache.object(ref.name, uid)
            if went is not None:
                return went, False
        if deleted is not None:
            return deleted, True
        return StoredObject(ref.name, uid, "", f"{QUEUED_ETAG}{change_id}", ics or ""), True
