"""Bringing the index in line with the disk: whole-folder scans and single-path updates.

Walking never follows symbolic links, so link cycles cannot make it loop, and it skips hidden
names, which Hearth never shows. A file whose size and mtime match the index is not read again.
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

from hearth.connectors.files.extract import Extracted, TextExtractor, kind_of
from hearth.connectors.files.index import Entry, FileIndex

log = logging.getLogger(__name__)

BATCH = 200
Progress = Callable[[int, int], None]
"""Called with (files done, files to do) while a scan reads files."""


@dataclass(frozen=True, slots=True)
class ScanResult:
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
        folder: Path,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> ScanResult:
        """Index new and changed entries below `folder` and forget vanished ones."""
        known = self.index.known(folder)
        seen: dict[Path, os.stat_result] = dict(walk(folder, cancel))
        changed = [
            (path, info)
            for path, info in seen.items()
            if known.get(path) != (info.st_size, info.st_mtime)
        ]
        gone = [path for path in known if path not in seen]
        with self.index.writing() as conn:
            for path in gone:
                self.index.remove(conn, path)
        indexed, skipped = self._index(changed, progress, cancel)
        return ScanResult(len(seen), indexed, len(gone), skipped)

    def update(self, paths: Iterable[Path], roots: list[Path]) -> None:
        """Re-check the given paths after change events: re-index, rescan or forget each."""
        scanned: list[Path] = []
        files: list[tuple[Path, os.stat_result]] = []
        # Shortest first, so a new folder is scanned once and its files are not read again.
        for path in sorted(set(paths), key=lambda p: len(p.parts)):
            inside = any(path.is_relative_to(root) for root in roots)
            if not inside or _hidden(path, roots) or _below(path, scanned):
                continue
            try:
                info = os.lstat(path)
            except OSError:
                with self.index.writing() as conn:
                    self.index.remove(conn, path)
                continue
            if stat.S_ISDIR(info.st_mode):
                self.scan(path)
                scanned.append(path)
                files.append((path, info))
            elif stat.S_ISREG(info.st_mode) and self._changed(path, info):
                files.append((path, info))
        self._index(files, None, None)

    def _changed(self, path: Path, info: os.stat_result) -> bool:
        known = self.index.get(path)
        return known is None or (known.size, known.mtime) != (info.st_size, info.st_mtime)

    def _index(
        self,
        items: list[tuple[Path, os.stat_result]],
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> tuple[int, int]:
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
                    for (path, info), extracted in zip(batch, results, strict=True):
                        entry = _entry(path, info, extracted)
                        skipped += entry.skipped is not None
                        self.index.put(conn, entry, extracted.text)
                done += len(batch)
                if progress:
                    progress(done, total)
        return done, skipped

    def _read(self, item: tuple[Path, os.stat_result]) -> Extracted:
        path, info = item
        if stat.S_ISDIR(info.st_mode):
            return Extracted(kind="folder", text="", skipped=None)
        # The extractor logs each skipped file with its reason.
        return self.extractor.extract(path)


def walk(
    folder: Path, cancel: threading.Event | None = None
) -> Iterator[tuple[Path, os.stat_result]]:
    """Every visible file and folder below `folder`, without following links."""
    pending = [folder]
    while pending:
        if cancel is not None and cancel.is_set():
            return
        current = pending.pop()
        try:
            with os.scandir(current) as entries:
                found = list(entries)
        except OSError as error:
            log.warning("cannot list %s: %s", current, error)
            continue
        for item in found:
            if item.name.startswith(".") or item.is_symlink():
                continue
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                continue
            path = Path(item.path)
            if stat.S_ISDIR(info.st_mode):
                pending.append(path)
                yield path, info
            elif stat.S_ISREG(info.st_mode):
                yield path, info


def _entry(path: Path, info: os.stat_result, extracted: Extracted) -> Entry:
    kind = "folder" if stat.S_ISDIR(info.st_mode) else kind_of(path)
    return Entry(path, kind, info.st_size, info.st_mtime, extracted.skipped)


def _below(path: Path, folders: list[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _hidden(path: Path, roots: list[Path]) -> bool:
    root = next(r for r in roots if path.is_relative_to(r))
    return any(part.startswith(".") for part in path.relative_to(root).parts)
