"""How the calendars' sync stands, in words: for `hearth calendar` and the Accounts page."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from hearth import counted
from hearth.connectors.calendar.cache import QueuedChange
from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.eventview import view
from hearth.connectors.calendar.objects import Problem
from hearth.connectors.calendar.store import SyncState

_UTC = ZoneInfo("UTC")


def ago(seconds: float) -> str:
    """ "just now", "5 minutes ago", "3 hours ago", "2 days ago"."""
    if seconds < 60:
        return "just now"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def describe_state(state: SyncState, now: float) -> str:
    """One calendar's line, e.g. "synced 2 minutes ago; 1 change waiting"."""
    if state.synced_at is None:
        parts = ["not synced yet"]
    else:
        parts = [f"synced {ago(now - state.synced_at)}"]
    if state.progress is not None:
        parts.append(syncing(*state.progress))
    if not state.online and state.kind == "ics":
        parts.append(f"not read now: {state.error}" if state.error else "not read now")
    elif not state.online:
        parts.append(f"offline ({state.error})" if state.error else "offline")
    elif state.error:
        parts.append(state.error)
    if state.problems:
        parts.append(unread(state.problems))
    if state.pending:
        parts.append(f"{state.pending} change{'s' if state.pending != 1 else ''} waiting")
    if state.conflicts:
        parts.append(f"{state.conflicts} conflict{'s' if state.conflicts != 1 else ''}")
    return "; ".join(parts)


def summary(states: Sequence[SyncState], now: float) -> str | None:
    """All calendars in one line, for the Accounts page; None when there are none."""
    if not states:
        return None
    last = max((state.synced_at for state in states if state.synced_at is not None), default=None)
    names = ", ".join(state.calendar for state in states)
    parts = [names + (f": synced {ago(now - last)}" if last is not None else ": not synced yet")]
    offline = [state.calendar for state in states if not state.online and state.kind != "ics"]
    if offline:
        parts.append(f"offline: {', '.join(offline)}")
    for state in states:
        if state.progress is not None:
            parts.append(f"{state.calendar}: {syncing(*state.progress)}")
    broken = [state for state in states if not state.online and state.kind == "ics"]
    if broken:
        parts.append(f"not read now: {'; '.join(str(state.error) for state in broken)}")
    for state in states:
        if state.problems:
            parts.append(f"{state.calendar}: {unread(state.problems)}")
    pending = sum(state.pending for state in states)
    if pending:
        parts.append(f"{pending} change{'s' if pending != 1 else ''} waiting to be sent")
    conflicts = sum(state.conflicts for state in states)
    if conflicts:
        parts.append(
            f"{conflicts} conflict{'s' if conflicts != 1 else ''}: see hearth calendar conflicts"
        )
    return "; ".join(parts)


def overview(states: Sequence[SyncState], missing: Sequence[str], now: float) -> str | None:
    """`summary` with the calendar files not found added: the Accounts page's one line."""
    line = summary(states, now)
    if missing:
        line = "; ".join([*([line] if line else []), f"not found: {', '.join(missing)}"])
    return line


def syncing(done: int, total: int) -> str:
    """A sync not done yet, e.g. "syncing: 1,200 of 5,200 events read"."""
    if not total:
        return "syncing: no events read yet"
    return f"syncing: {done:,} of {counted(total, 'event')} read"


def unread(problems: Sequence[Problem]) -> str:
    """The parts of a calendar left out, in a few words: how many, and the first with its line."""
    count = len(problems)
    first = problems[0]
    at = f"line {first.line}: " if first.line is not None else ""
    more = f" (and {count - 1} more: see hearth calendar list)" if count > 1 else ""
    noun = "part" if count == 1 else "parts"
    return f"{count} {noun} not read, {at}{first.component}: {first.message}{more}"


def describe_change(change: QueuedChange) -> str:
    """A queued or conflicting change, e.g. "change 'Dentist' in Personal: <why>"."""
    title = change.uid
    if change.ics:
        with contextlib.suppress(CalendarError):
            title = repr(view(change.ics, _UTC).title)
    verb = "delete" if change.op == "delete" else "change"
    why = f": {change.error}" if change.error else ""
    return f"{verb} {title} in {change.calendar}{why}"
