"""Calendar files as last read and parsed, parsed again only when their bytes change.

Parsing a large calendar takes seconds, and a sync asks a file first for its name and then for
its events, every few minutes. Each file is kept as parsed, keyed by the hash of its bytes: an
unchanged file is never parsed again, and a file Hearth wrote itself is kept as parsed while
its new text was checked, so the sync after the write parses nothing either.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path

from hearth.connectors.calendar import atomic, errors
from hearth.connectors.calendar.ics import read_calendar, split_objects
from hearth.connectors.calendar.objects import Problem


@dataclass(frozen=True)
class Snapshot:
    """A calendar file as read once: its bytes, their fingerprint and what parsing found."""

    path: Path
    data: bytes
    version: atomic.Fingerprint
    problems: list[Problem]
    properties: list[tuple[str, bytes]]  # the calendar's own, to check a write kept them
    objects: dict[str, str]
    name: str | None = None  # X-WR-CALNAME
    cut: str | None = None  # why the text is not whole; None when it is

    def whole(self) -> Snapshot:
        """This snapshot, unless the file is cut short (half-written, truncated): an error."""
        if self.cut is not None:
            raise errors.BadCalendarData(
                f"{self.path} is cut short: {self.cut}; Hearth reads it once it is whole"
            )
        return self


def parse(path: Path, data: bytes, version: atomic.Fingerprint) -> Snapshot:
    """Parse a calendar file's bytes; raises CalendarError when they hold no calendar at all."""
    parsed = read_calendar(data, where=str(path))
    own = parsed.calendar.property_items(recursive=False)
    properties = [(name, v if isinstance(v, bytes) else _ical(v)) for name, v in own]
    objects = split_objects(parsed.calendar)
    return Snapshot(
        path, data, version, parsed.problems, properties, objects, parsed.name, parsed.cut
    )


class Snapshots:
    """The files a source reads, each parsed once per version; safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # path -> the last snapshot, or (fingerprint, why) for bytes that hold no calendar
        self._kept: dict[Path, Snapshot | tuple[atomic.Fingerprint, errors.CalendarError]] = {}

    def current(self, path: Path) -> Snapshot:
        """The file as it is now: read in full, parsed only if its bytes changed."""
        try:
            data, version = atomic.read_fingerprinted(path)
        except FileNotFoundError:
            raise errors.CalendarNotFound(f"the calendar file {path} is gone") from None
        except OSError as error:  # permission denied, a folder, an I/O error
            message = f"could not read {path}: {error.strerror or error}"
            raise errors.CalendarError(message) from None
        with self._lock:
            kept = self._kept.get(path)
        if isinstance(kept, Snapshot) and kept.version.sha256 == version.sha256:
            if kept.version != version:
                kept = replace(kept, version=version)
                self.remember(kept)
            return kept
        if isinstance(kept, tuple) and kept[0].sha256 == version.sha256:
            raise kept[1]
        try:
            snapshot = parse(path, data, version)
        except errors.CalendarError as error:
            with self._lock:
                self._kept[path] = (version, error)
            raise
        self.remember(snapshot)
        return snapshot

    def named(self, path: Path) -> tuple[str, bool]:
        """The calendar's own name (else the file's), and whether it read without problems;
        a file unchanged on disk (time and size) is not even read."""
        try:
            status = path.stat()
        except OSError:
            return path.stem, False
        with self._lock:
            kept = self._kept.get(path)
        fingerprint = kept.version if isinstance(kept, Snapshot) else kept[0] if kept else None
        if fingerprint is None or (fingerprint.mtime_ns, fingerprint.size) != (
            status.st_mtime_ns,
            status.st_size,
        ):
            try:
                self.current(path)
            except errors.CalendarNotFound:
                return path.stem, False
            except errors.CalendarError:  # not a calendar at all, or not readable now
                pass
            with self._lock:
                kept = self._kept.get(path)
        if isinstance(kept, Snapshot):
            return kept.name or path.stem, not kept.problems
        return path.stem, False

    def remember(self, snapshot: Snapshot) -> None:
        """Keep `snapshot` as the file's current one (after Hearth wrote it)."""
        with self._lock:
            self._kept[snapshot.path] = snapshot

    def forget(self, keep: set[Path]) -> None:
        """Drop what is kept of files not in `keep` (no longer granted)."""
        with self._lock:
            for path in [path for path in self._kept if path not in keep]:
                del self._kept[path]


def _ical(value: object) -> bytes:
    to_ical = getattr(value, "to_ical", None)
    text = to_ical() if callable(to_ical) else str(value)
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)  # vTime gives str
