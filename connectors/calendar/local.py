"""Calendars in local ICS files: each granted file, and every `*.ics` in each granted folder.

A file is one calendar; each event UID in it is one object whose etag is the hash of the whole
file as read, so any change to the file since Hearth read it is a conflict. A write changes the
text of that UID's components only: every other line of the file stays byte for byte as it was.
The result is parsed again and checked before it replaces the file atomically. A file with
parts Hearth could not read is never rewritten, so nothing the user had is lost. A file cut short
(no END:VCALENDAR: half-written or truncated) is an error, never read as the events it still holds.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from icalendar.parser import Contentline

from hearth import counted
from hearth.connectors.calendar import atomic, errors
from hearth.connectors.calendar.file_snapshots import Snapshot, Snapshots, parse
from hearth.connectors.calendar.ics import read_calendar, split_objects
from hearth.connectors.calendar.objects import CalendarRef, Problem, SourceKind, StoredObject
from hearth.connectors.calendar.scan import Block, blocks

# One physical line with its own line end, as read_calendar counts lines (CR, LF or CRLF).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass(frozen=True)
class _Part:
    """A top-level component of ICS text: its kind, its UID (TZID for a VTIMEZONE), its lines."""

    kind: str
    key: str | None
    first: int  # index of its BEGIN line
    last: int  # index of its END line


class IcsFileSource:
    """The calendars in the ICS files and folders `paths` returns (the user's grants)."""

    kind: SourceKind = "ics"

    def __init__(self, paths: Callable[[], list[Path]]) -> None:
        self._paths = paths
        self._lock = threading.Lock()  # one read-check-write at a time from this Hearth
        self._files = Snapshots()

    def calendars(self) -> list[CalendarRef]:
        """One calendar per file, named by X-WR-CALNAME or the file name, names made distinct.

        A file with parts Hearth could not read is listed as not writable: it is never rewritten.
        """
        files = self._calendar_files()
        self._files.forget(set(files))
        found = {path: self._files.named(path) for path in files}
        named = _distinct([(name, path) for path, (name, _) in found.items()])
        return [
            CalendarRef(name, "ics", str(path), writable=found[path][1] and _writable(path))
            for name, path in named
        ]

    def objects(self, calendar: CalendarRef) -> tuple[list[StoredObject], list[Problem]]:
        """Every event UID in the file, and the parts of it that could not be read."""
        snapshot = self._files.current(self._locate(calendar)).whole()
        stored = [_stored(calendar, snapshot, uid) for uid in snapshot.objects]
        return stored, list(snapshot.problems)

    def put(
        self, calendar: CalendarRef, uid: str, ics: str, *, expected_etag: str | None
    ) -> StoredObject:
        """Create (`expected_etag=None`) or replace the event `uid` if the file is unchanged."""
        path = self._locate(calendar)
        new = _new_parts(uid, ics)
        with self._lock:
            snapshot = _read_for_writing(self._files, path, expected_etag, uid)
            after = _commit(snapshot, uid, new)
            self._files.remember(after)
            return _stored(calendar, after, uid)

    def delete(self, calendar: CalendarRef, obj: StoredObject) -> None:
        """Remove the event `obj.uid` from the file if the file is as `obj` was read."""
        path = self._locate(calendar)
        with self._lock:
            snapshot = _read_for_writing(self._files, path, obj.etag, obj.uid)
            self._files.remember(_commit(snapshot, obj.uid, []))

    def _calendar_files(self) -> list[Path]:
        """Each granted calendar file once, even if granted itself and through its folder."""
        return list(dict.fromkeys(p for granted in self._paths() for p in _ics_files(granted)))

    def _locate(self, calendar: CalendarRef) -> Path:
        """The calendar's file, only if it is still one the user granted."""
        path = Path(calendar.location)
        if calendar.source != "ics" or path not in self._calendar_files():
            raise errors.CalendarNotFound(f"no granted calendar file is at {calendar.location}")
        return path


def _ics_files(granted: Path) -> list[Path]:
    """The real paths of the calendar files a grant covers, never leaving a granted folder."""
    try:
        root = granted.resolve(strict=True)
    except (OSError, RuntimeError):
        return []
    if root.is_file():
        return [root]
    files: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or not name.lower().endswith(".ics"):
                continue  # hidden, as every temporary copy `atomic` writes is
            real = Path(folder, name).resolve()
            if real.is_file() and real.is_relative_to(root):
                files.append(real)
    return files


def _distinct(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """Same names made distinct as "Work (2)", "Work (3)" in path order, so always the same."""
    ordered = sorted(found, key=lambda item: (item[0].casefold(), str(item[1])))
    used = {name.casefold() for name, _ in ordered}
    named: list[tuple[str, Path]] = []
    given: set[str] = set()  # names handed out, compared as a user would: case aside
    for name, path in ordered:
        distinct, number = name, 1
        while distinct.casefold() in given or (number > 1 and distinct.casefold() in used):
            number += 1
            distinct = f"{name} ({number})"
        given.add(distinct.casefold())
        named.append((distinct, path))
    return named


def _writable(path: Path) -> bool:
    """Whether this user may replace the file: write it, and make a new entry in its folder."""
    effective = os.access in os.supports_effective_ids
    folder_ok = os.access(path.parent, os.W_OK | os.X_OK, effective_ids=effective)
    return folder_ok and os.access(path, os.W_OK, effective_ids=effective)


def _read_for_writing(files: Snapshots, path: Path, etag: str | None, uid: str) -> Snapshot:
    """The file now, if it is as it was read (`etag`; None: `uid` is new) and safe to rewrite."""
    if not _writable(path):
        raise errors.ReadOnlyCalendar(f"{path} is read-only for Hearth (the file or its folder)")
    snapshot = files.current(path).whole()
    if problems := snapshot.problems:
        raise errors.ReadOnlyCalendar(
            f"{path} has {counted(len(problems), 'part')} Hearth could not read, the first being "
            f"{problems[0].describe()}. Hearth will not rewrite it and lose them; nothing was "
            "written"
        )
    if etag is None and uid in snapshot.objects:
        raise _changed(path, f"it already has an event with UID {uid}")
    if etag is not None and etag != snapshot.version.sha256:
        raise _changed(path, "another program edited it")
    if etag is not None and uid not in snapshot.objects:
        raise errors.EventNotFound(f"{path} has no event with UID {uid}")
    return snapshot


def _changed(path: Path, how: str) -> errors.Conflict:
    return errors.Conflict(f"{path} changed since Hearth read it ({how}); nothing was written")


def _new_parts(uid: str, ics: str) -> list[tuple[_Part, list[str]]]:
    """Each component of the new version of `uid` with its lines, after checking them."""
    parsed = read_calendar(ics, where=f"the new version of event {uid}")
    if parsed.problems:
        raise errors.BadCalendarData("; ".join(p.describe() for p in parsed.problems))
    uids = sorted(split_objects(parsed.calendar))
    lines, parts = _parts(ics)
    if uids != [uid] or any(part.key != uid for part in parts if part.kind != "VTIMEZONE"):
        raise errors.BadCalendarData(f"the new event text must hold UID {uid} only, not {uids}")
    return [(part, lines[part.first : part.last + 1]) for part in parts]


def _commit(snapshot: Snapshot, uid: str, new: list[tuple[_Part, list[str]]]) -> Snapshot:
    """Write the file with `uid` replaced by `new` (removed when empty), if all else stays;
    returns the file as written, parsed (the one parse of this version)."""
    path, data = snapshot.path, _spliced(snapshot, uid, new).encode("utf-8")
    after = parse(path, data, atomic.Fingerprint(0, len(data), hashlib.sha256(data).hexdigest()))
    others = [{k: v for k, v in s.objects.items() if k != uid} for s in (snapshot, after)]
    kept = others[0] == others[1] and after.properties == snapshot.properties
    if after.problems or after.cut or not kept or (uid in after.objects) != bool(new):
        raise errors.CalendarError(
            f"Hearth could not change {path} without disturbing the rest of it; nothing was written"
        )
    try:
        atomic.write_atomically(path, data, unchanged_since=snapshot.version)
    except atomic.FileChanged:
        raise _changed(path, "another program wrote it just now") from None
    except PermissionError:
        raise errors.ReadOnlyCalendar(f"Hearth may not write {path}; nothing changed") from None
    except OSError as error:
        raise errors.CalendarError(
            f"could not write {path} ({error.strerror or error}); the file is unchanged"
        ) from None
    return after


def _spliced(snapshot: Snapshot, uid: str, new: list[tuple[_Part, list[str]]]) -> str:
    """The file's text with the components of `uid` cut out and `new` added at its end."""
    try:
        text = snapshot.data.decode("utf-8")
    except UnicodeDecodeError:
        message = f"{snapshot.path} is not UTF-8 text; Hearth left it unchanged"
        raise errors.ReadOnlyCalendar(message) from None
    lines, parts = _parts(text)
    ends = [i for i, line in enumerate(lines) if line.rstrip().upper() == "END:VCALENDAR"]
    closing = ends[-1] if ends else len(lines)
    cut = {
        index
        for part in parts
        if part.kind != "VTIMEZONE" and part.key == uid
        for index in range(part.first, part.last + 1)
    }
    zones = {part.key for part in parts if part.kind == "VTIMEZONE"}
    newline = lines[0][len(lines[0].rstrip("\r\n")) :] or "\r\n"  # the file's own line end
    wanted = [block for part, block in new if part.kind != "VTIMEZONE" or part.key not in zones]
    added = [line.rstrip("\r\n") + newline for block in wanted for line in block]
    kept = [line for index, line in enumerate(lines[:closing]) if index not in cut]
    return "".join(kept + added + lines[closing:])


def _parts(text: str) -> tuple[list[str], list[_Part]]:
    """The physical lines of `text` (with their line ends) and its top-level components."""
    lines = _LINE.findall(text)
    parts: list[_Part] = []
    found = blocks(text.removeprefix("\ufeff"), "", [])
    for block in found.blocks if found else []:
        key = _own(block, "TZID" if block.kind == "VTIMEZONE" else "UID")
        parts.append(_Part(block.kind, key, block.line - 1, block.lines[-1].number - 1))
    return lines, parts


def _own(block: Block, wanted: str) -> str | None:
    """The value of the component's own property `wanted` (not a nested alarm's)."""
    depth = 0
    for line in block.lines[1:-1]:
        name = line.name()
        if name in ("BEGIN", "END"):
            depth += 1 if name == "BEGIN" else -1
        elif depth == 0 and name == wanted:
            try:  # read the value as icalendar reads it, escapes and all
                return str(Contentline(line.text).parts()[2])  # type: ignore[no-untyped-call]
            except ValueError:
                return None
    return None


def _stored(calendar: CalendarRef, snapshot: Snapshot, uid: str) -> StoredObject:
    href = f"{snapshot.path}#{uid}"
    return StoredObject(calendar.name, uid, href, snapshot.version.sha256, snapshot.objects[uid])
