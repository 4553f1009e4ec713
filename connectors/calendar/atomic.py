"""Replacing a file so that a crash leaves the old version or the new one, never a mix.

The new bytes go to a temporary file beside the target, are flushed to disk, and then take the
target's name in one `os.replace`. A reader, or Hearth after a kill or a power cut, sees either
the whole old file or the whole new one. The temporary name is hidden and does not end in
`.ics`, so a calendar source never mistakes a leftover for a calendar; it carries the id of the
process that made it, and the next write in that folder removes leftovers whose process is gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import stat
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

_TEMPORARY = re.compile(r"\..+\.hearth-(\d+)-[0-9a-f]{12}\.tmp")
# A writer never takes this long; an older temporary file is a leftover whatever its process id
# says (the id may have been reused since).
_STALE_AFTER_S = 3600.0


@dataclass(frozen=True)
class Fingerprint:
    """A file's version: modification time and size (cheap to check) and the hash of its bytes."""

    mtime_ns: int
    size: int
    sha256: str


class FileChanged(Exception):
    """The target changed while the new version was being written; it was left as it is."""


def read_fingerprinted(path: Path) -> tuple[bytes, Fingerprint]:
    """The bytes of `path` and the fingerprint of exactly those bytes."""
    with path.open("rb") as file:
        data = file.read()
        status = os.fstat(file.fileno())
    digest = hashlib.sha256(data).hexdigest()
    return data, Fingerprint(status.st_mtime_ns, status.st_size, digest)


def fingerprint(path: Path) -> Fingerprint:
    """The fingerprint of the file at `path` as it is now."""
    return read_fingerprinted(path)[1]


def is_temporary(name: str) -> bool:
    """Whether `name` is one of `write_atomically`'s temporary files (finished or not)."""
    return _TEMPORARY.fullmatch(name) is not None


def write_atomically(
    path: Path, data: bytes, *, unchanged_since: Fingerprint | None = None
) -> None:
    """Replace the file at `path` with `data`, all at once, keeping its permissions.

    With `unchanged_since`, raise `FileChanged` and leave the file alone if its time or size
    differ from that fingerprint just before the replace (another program wrote meanwhile).
    """
    folder = path.parent
    _sweep(folder)
    temporary = folder / f".{path.name}.hearth-{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp"
    try:
        old = path.stat()
    except FileNotFoundError:
        old = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(temporary, flags, 0o666)  # the umask applies, as for any new file
    try:
        with os.fdopen(descriptor, "wb") as file:
            if old is not None:
                _copy_permissions(file.fileno(), old)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if unchanged_since is not None:
            _refuse_changed(path, unchanged_since)
        temporary.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(folder)


def _copy_permissions(descriptor: int, old: os.stat_result) -> None:
    if sys.platform == "win32":
        return
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        # Only root may give a file away; anyone else keeps the file as their own.
        with contextlib.suppress(PermissionError):
            os.fchown(descriptor, old.st_uid, old.st_gid)
    # After the owner: a change of owner clears the set-id bits.
    os.fchmod(descriptor, stat.S_IMODE(old.st_mode))


def _refuse_changed(path: Path, expected: Fingerprint) -> None:
    try:
        now = path.stat()
    except FileNotFoundError:
        raise FileChanged(f"{path} was removed") from None
    if (now.st_mtime_ns, now.st_size) != (expected.mtime_ns, expected.size):
        raise FileChanged(f"{path} was changed by another program")


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable, where the system allows (not Windows, not every disk).

    The file is replaced already, so a failure here is logged, never raised as a failed write.
    """
    if sys.platform == "win32":
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        log.warning("could not flush the folder %s to disk: %s", folder, error)


def _sweep(folder: Path) -> None:
    """Remove the temporary files a killed writer left in `folder`; never a live writer's."""
    try:
        names = [entry.name for entry in os.scandir(folder) if is_temporary(entry.name)]
    except OSError:
        return
    for name in names:
        leftover = folder / name
        try:
            if not _is_stale(name, leftover.lstat()):
                continue
            leftover.unlink()
        except FileNotFoundError:
            continue
        except OSError as error:
            log.warning("could not remove %s, left by a stopped writer: %s", leftover, error)
            continue
        log.info("removed %s, a copy a stopped Hearth left unfinished", leftover)


def _is_stale(name: str, status: os.stat_result) -> bool:
    if time.time() - status.st_mtime > _STALE_AFTER_S:
        return True
    found = _TEMPORARY.fullmatch(name)
    owner = int(found.group(1)) if found else os.getpid()
    return owner != os.getpid() and not _alive(owner)


def _alive(pid: int) -> bool:
    if sys.platform == "win32":
        return True  # os.kill would end the process there; the age check removes leftovers
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, run by someone else
    return True
