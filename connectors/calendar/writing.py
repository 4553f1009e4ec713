"""The calendar tools that change things: create, update and delete events, with undo.

Every write names the version it read (CalDAV ETag, or the file's hash), so a change made
elsewhere meanwhile is a `Conflict`, never overwritten. A call that would mail invitations or
updates to attendees says whom (`notifies`), so the gate judges it as a send to them too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hearth import UndoFailed, journal_step, tool
from hearth.connectors.calendar.changes import ChangeLog, fingerprint, new_change_id
from hearth.connectors.calendar.editing import (
    change_object,
    event_uid,
    new_object,
    remove_occurrence,
)
from hearth.connectors.calendar.errors import CalendarNotFound, Conflict, EventNotFound
from hearth.connectors.calendar.eventview import view
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.objects import StoredObject
from hearth.connectors.calendar.proposals import ProposalHooks
from hearth.connectors.calendar.results import Changed


class WritingTools(ProposalHooks):
    """The calendar connector's tools that change events; each can be undone."""

    library: CalendarLibrary
    changes: ChangeLog

    @tool(
        effect="write",
        scope="calendar",
        keywords=("add", "create", "new", "book", "schedule", "meeting", "invite"),
        check="check_create",
        notifies="invited_by_create",
        preview="preview_create",
        slots="slots_of_create",
        undo="undo_change",
    )
    def create_event(
        self,
        calendar: str,
        title: str,
        start: str,
        end: str | None = None,
        location: str = "",
        description: str = "",
        attendees: list[str] | None = None,
    ) -> Changed:
        """Create an event. With attendees, the calendar server mails them an invitation.

        Args:
            calendar: Name of the calendar to put it in.
            title: What the event is called.
            start: When it starts: YYYY-MM-DDTHH:MM, or YYYY-MM-DD for an all-day event.
            end: When it ends; without it, one hour after the start (or the same day).
            location: Where it happens.
            description: Notes for the event.
            attendees: Email addresses of people to invite.
        """
        library = self.library
        fields = self._fields(title, start, end, location, description, attendees)
        uid = event_uid()
        organizer = library.public_settings().username
        ics = new_object(
            uid,
            fields,
            library.zone(),
            organizer=organizer if "@" in organizer else None,
            now=library.now(),
        )
        change = new_change_id()
        step = {"id": uid, "calendar": calendar, "title": fields.title, "change": change}
        journal_step("created", {**step, "written": fingerprint(ics)})
        saved = library.store.put(calendar, uid, ics, expected_etag=None)
        record = self.changes.record(
            "created", saved.object.calendar, uid, None, saved.object.etag, change_id=change
        )
        return Changed(
            action="created",
            id=uid,
            calendar=saved.object.calendar,
            title=fields.title,
            change=record.id,
            queued=saved.queued,
            note=_queued_note(saved.queued),
        )

    @tool(
        effect="write",
        scope="calendar",
        keywords=("move", "change", "reschedule", "rename", "update", "edit"),
        check="check_change",
        notifies="notified_by_change",
        preview="preview_update",
        slots="slots_of_update",
        undo="undo_change",
    )
    def update_event(
        self,
        calendar: str,
        id: str,
        occurrence: str | None = None,
        title: str | None = None,
        start: str | None = None,
        end: str | None = None,
        location: str | None = None,
        description: str | None = None,
        attendees: list[str] | None = None,
    ) -> Changed:
        """Change an event: move it, rename it, or change its place, notes or guests.

        Args:
            calendar: Name of the calendar the event is in.
            id: The event's id, as list_events or search gave it.
            occurrence: For a recurring event, the occurrence to change, as listed; without
                it, the whole series changes.
            title: New title.
            start: New start (YYYY-MM-DDTHH:MM); the event keeps its length unless end is given.
            end: New end.
            location: New place.
            description: New notes.
            attendees: The full new list of guests' email addresses.
        """
        obj = self._event(calendar, id)
        asked = {
            "title": title,
            "start": start,
            "end": end,
            "location": location,
            "description": description,
            "attendees": attendees,
        }
        changed = change_object(
            obj.ics,
            self._changes(asked),
            self.library.zone(),
            occurrence=occurrence,
            now=self.library.now(),
        )
        return self._save(obj, changed, occurrence)

    @tool(
        effect="write",
        scope="calendar",
        keywords=("delete", "remove", "cancel"),
        check="check_change",
        notifies="notified_by_change",
        preview="preview_delete",
        slots="slots_of_delete",
        undo="undo_change",
    )
    def delete_event(self, calendar: str, id: str, occurrence: str | None = None) -> Changed:
        """Delete an event, or one occurrence of a recurring event.

        Args:
            calendar: Name of the calendar the event is in.
            id: The event's id, as list_events or search gave it.
            occurrence: For a recurring event, the one occurrence to delete, as listed;
                without it, the whole series is deleted.
        """
        obj = self._event(calendar, id)
        if occurrence is not None:
            title = view(obj.ics, self.library.zone(), occurrence).title
            changed = remove_occurrence(obj.ics, occurrence, now=self.library.now())
            return self._save(obj, changed, occurrence, title)
        title = view(obj.ics, self.library.zone()).title
        saved = self.library.store.delete(obj)
        record = self.changes.record("deleted", obj.calendar, obj.uid, obj.ics, None)
        return Changed(
            action="deleted",
            id=obj.uid,
            calendar=obj.calendar,
            title=title,
            change=record.id,
            queued=saved.queued,
            note=_queued_note(saved.queued),
        )

    def undo_change(self, arguments: Mapping[str, Any], result: Changed) -> str:
        """Put back what the change replaced, if nothing changed the event since."""
        if result.written is not None and self.changes.find(result.change) is None:
            return self._undo_cut_short_create(result, result.written)
        record = self.changes.get(result.change)
        store = self.library.store
        try:
            current: StoredObject | None = store.find(record.uid, record.calendar)
        except EventNotFound:
            current = None
        if record.action == "deleted":
            if current is not None:
                raise UndoFailed("an event with that id is back already; nothing was replaced")
            _undo_write(
                lambda: store.put(
                    record.calendar, record.uid, record.before_ics or "", expected_etag=None
                )
            )
            return f"Put back {result.title!r}"
        if current is None:
            raise UndoFailed(f"{result.title!r} is no longer in {record.calendar}")
        if current.etag != record.after_etag:
            raise UndoFailed(f"{result.title!r} was changed since; nothing was replaced")
        if record.action == "created":
            _undo_write(lambda: store.delete(current))
            return f"Removed {result.title!r}"
        _undo_write(
            lambda: store.put(
                record.calendar, record.uid, record.before_ics or "", expected_etag=current.etag
            )
        )
        return f"Changed {result.title!r} back"

    def _undo_cut_short_create(self, result: Changed, written: str) -> str:
        """Remove the event a create cut short may have written, if it is as Hearth wrote it."""
        store = self.library.store
        try:
            store.reread(result.calendar)  # the cache may predate the write
            current = store.find(result.id, result.calendar)
        except (EventNotFound, CalendarNotFound):
            return f"{result.title!r} never reached {result.calendar}; nothing to remove"
        if fingerprint(current.ics) != written:
            raise UndoFailed(f"{result.title!r} was changed since; nothing was removed")
        _undo_write(lambda: store.delete(current))
        return f"Removed {result.title!r}"

    def _save(
        self, obj: StoredObject, ics: str, occurrence: str | None, title: str | None = None
    ) -> Changed:
        saved = self.library.store.put(obj.calendar, obj.uid, ics, expected_etag=obj.etag)
        record = self.changes.record("updated", obj.calendar, obj.uid, obj.ics, saved.object.etag)
        return Changed(
            action="updated",
            id=obj.uid,
            calendar=obj.calendar,
            title=title or view(ics, self.library.zone(), occurrence).title,
            change=record.id,
            occurrence=occurrence,
            queued=saved.queued,
            note=_queued_note(saved.queued),
        )


def _queued_note(queued: bool) -> str | None:
    return (
        "the server could not be reached; the change is saved and will be sent when it can"
        if queued
        else None
    )


def _undo_write(write: Callable[[], object]) -> None:
    try:
        write()
    except Conflict as conflict:
        raise UndoFailed(str(conflict)) from None
