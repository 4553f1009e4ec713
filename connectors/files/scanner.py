"""Bringing the index in line with the disk: whole-folder scans and single-path updates.

Walking goes down from a grant's pinned folder by directory descriptors and never follows a
symbolic link, in a scan or after a change event, so a link (or a folder swapped for one) never
makes anything outside the grants searchable, and link cycles cannot make it loop. It skips hidden
names, which Hearth never shows, and removes on its way the temporary copies a killed Hearth left
(`leftovers`). A file whose size and mtime match the index is not read again. A file with more
than one name (hard link) is indexed by name only, with the reason, and tried again on every
rescan, since its other names may be outside the grants.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hearth.connectors.files.errors import FilesError
from hearth.connectors.files.extract import UNREADABLE, Extracted, TextExtractor, kind_of
from hearth.connectors.files.fsops import (
    FOLDER,
    HARD_LINKED,
    Grant,
    Spot,
    folder_of,
    hard_links,
    open_at,
    parent_of,
    pin,
    stat_at,
)
from hearth.connectors.files.index import Entry, FileIndex
from hearth.connectors.files.leftovers import sweep_leftover

log = logging.getLogger(__name__)

BATCH = 200
READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
Progress = Callable[[int, int], None]
"""Called with (files done, files to do) while a scan reads files."""
_Item = tuple[Grant, Path, os.stat_result]


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Entries found; of those read now, how many gave text (or are folders) and how many not."""

    seen: int
    indexed: int
    removed: int
    skipped: int


class Scanner:
    """Reads changed files under a folder and writes them to the index."""

    def __init__(self, index: FileIndex, extractor: TextExtractor, workers: int = 4) -> None:
        self.index = index
        self.extractor = extractor
        self.workers = workers

    def scan(
        self,
        folder: Grant | Spot | Path,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> ScanResult:
        """Index new and changed entries below `folder` and forget vanished ones.

        A plain path is pinned as it is now; a grant is walked from its pinned folder.
        """
        spot = _spot(folder)
        known = self.index.known(spot.path)
        seen: dict[Path, os.stat_result] = {}
        try:
            with folder_of(spot) as descriptor:
                seen = dict(walk(descriptor, spot.path, cancel, sweep=True))
        except FilesError as error:  # gone, replaced, or a link now: nothing is seen through it
            log.warning("cannot index %s: %s", spot.path, error)
        retry = self._unreadable(spot.path)
        changed = [
            (spot.grant, path, info)
            for path, info in seen.items()
            if known.get(path) != (info.st_size, info.st_mtime) or path in retry
        ]
        gone = [path for path in known if path not in seen]
        with self.index.writing() as conn:
            for path in gone:
                self.index.remove(conn, path)
        indexed, skipped = self._index(changed, progress, cancel)
        return ScanResult(len(seen), indexed, len(gone), skipped)

    def _unreadable(self, folder: Path) -> set[Path]:
        return {e.path for e in self.index.skipped(folder, limit=-1) if _could_not_read(e)}

    def update(self, paths: Iterable[Path], grants: list[Grant]) -> None:
        """Re-check the given paths after change events: re-index, rescan or forget each."""
        scanned: list[Path] = []
        files: list[_Item] = []
        # Shortest first, so a new folder is scanned once and its files are not read again.
        for path in sorted(set(paths), key=lambda p: len(p.parts)):
            spot = _inside(path, grants)
            if spot is None or _below(path, scanned):
                continue
            info = _status(spot)
            if info is not None and stat.S_ISDIR(info.st_mode):
                self.scan(spot)
                scanned.append(path)
                if not spot.is_root:
                    files.append((spot.grant, path, info))
            elif info is not None and stat.S_ISREG(info.st_mode):
                if self._changed(path, info):
                    files.append((spot.grant, path, info))
            else:  # gone, a link, or behind one now: nothing below it may stay searchable
                with self.index.writing() as conn:
                    self.index.remove(conn, path)
        self._index(files, None, None)

    def _changed(self, path: Path, info: os.stat_result) -> bool:
        known = self.index.get(path)
        if known is None or _could_not_read(known):
            return True
        return (known.size, known.mtime) != (info.st_size, info.st_mtime)

    def _index(
        self,
        items: list[_Item],
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> tuple[int, int]:
        """Read and index `items`; how many gave text (or are folders), and how many not."""
        done = skipped = 0
        total = len(items)
        if progress:
            progress(0, total)
        with ThreadPoolExecutor(self.workers, thread_name_prefix="hearth-extract") as pool:
            for start in range(0, total, BATCH):
                if cancel is not None and cancel.is_set():
                    break
                batch = items[start : start + BATCH]
                results = list(pool.map(self._read, batch))
                with self.index.writing() as conn:
                    for (_, path, info), extracted in zip(batch, results, strict=True):
                        entry = _entry(path, info, extracted)
                        skipped += entry.skipped is not None
                        self.index.put(conn, entry, extracted.text)
                done += len(batch)
                if progress:
                    progress(done, total)
        return done - skipped, skipped

    def _read(self, item: _Item) -> Extracted:
        grant, path, info = item
        if stat.S_ISDIR(info.st_mode):
            return Extracted(kind="folder", text="", skipped=None)
        # Opened by walking down from the grant again, so a folder swapped for a link since
        # the walk above cannot lead the reader outside. The extractor logs skipped files.
        spot = Spot(grant, path.relative_to(grant.path).parts)
        try:
            with parent_of(spot) as folder:
                descriptor = open_at(folder, spot.name, READ)
        except (FilesError, OSError) as error:
            return Extracted(kind_of(path), "", f"{UNREADABLE}: {_reason(error)}")
        try:
            # Checked on what was opened: a file with other names may be one outside the grants.
            linked = hard_links(os.fstat(descriptor))
            if linked is not None:
                log.info("Skipped %s: %s", path, linked)
                return Extracted(kind_of(path), "", linked)
            return self.extractor.extract(path, descriptor)
        finally:
            os.close(descriptor)


def walk(
    folder: int, path: Path, cancel: threading.Event | None = None, *, sweep: bool = False
) -> Iterator[tuple[Path, os.stat_result]]:
    """Every visible file and folder below the open `folder` (at `path`), never through a link.

    Holds one descriptor per level of the folder being listed, never one per folder found.
    With `sweep`, removes the leftovers of a killed Hearth it meets.
    """
    held: list[tuple[int, Path, list[str]]] = []
    try:
        yield from _enter(held, os.dup(folder), path, sweep)
        while held:
            if cancel is not None and cancel.is_set():
                return
            descriptor, where, subfolders = held[-1]
            if not subfolders:
                os.close(held.pop()[0])
                continue
            name = subfolders.pop()
            try:
                child = os.open(name, FOLDER, dir_fd=descriptor)
            except OSError:
                continue  # removed, or swapped for a link, since it was listed
            yield from _enter(held, child, where / name, sweep)
    finally:
        for descriptor, _, _ in held:
            os.close(descriptor)


def _enter(
    held: list[tuple[int, Path, list[str]]], descriptor: int, where: Path, sweep: bool
) -> Iterator[tuple[Path, os.stat_result]]:
    subfolders: list[str] = []
    held.append((descriptor, where, subfolders))
    try:
        with os.scandir(descriptor) as entries:
            found = list(entries)
    except OSError as error:
        log.warning("cannot list %s: %s", where, error)
        return
    for item in found:
        if item.name.startswith("."):
            if sweep:
                sweep_leftover(descriptor, item.name)
            continue
        try:
            info = item.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            subfolders.append(item.name)
            yield where / item.name, info
        elif stat.S_ISREG(info.st_mode):
            yield where / item.name, info


def _spot(folder: Grant | Spot | Path) -> Spot:
    if isinstance(folder, Spot):
        return folder
    if isinstance(folder, Grant):
        return Spot(folder, ())
    return Spot(pin(Path(os.path.realpath(folder))), ())


def _inside(path: Path, grants: list[Grant]) -> Spot | None:
    """Where `path` is below a grant, unless it is outside them all or hidden."""
    for grant in grants:
        if path.is_relative_to(grant.path):
            parts = path.relative_to(grant.path).parts
            return None if any(part.startswith(".") for part in parts) else Spot(grant, parts)
    return None


def _status(spot: Spot) -> os.stat_result | None:
    """What `spot` is now, reached without following a link; None if it cannot be reached."""
    try:
        if spot.is_root:
            with folder_of(spot) as descriptor:
                return os.fstat(descriptor)
        with parent_of(spot) as folder:
            return stat_at(folder, spot.name)
    except FilesError:
        return None


def _could_not_read(entry: Entry) -> bool:
    # A file made readable keeps its size and time, so one that could not be read is retried;
    # so does a file whose other names were removed, so a hard-linked one is retried too.
    return (entry.skipped or "").startswith((UNREADABLE, HARD_LINKED))


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) else None) or str(error)


def _entry(path: Path, info: os.stat_result, extracted: Extracted) -> Entry:
    kind = "folder" if stat.S_ISDIR(info.st_mode) else kind_of(path)
    return Entry(path, kind, info.st_size, info.st_mtime, extracted.skipped)


def _below(path: Path, folders: list[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)
