"""Remember GGUF files that passed the check, so loading a known file does not re-read it.

A file is known by its resolved path, size, modification time (ns) and inode: a change to any
of them, such as a rewrite, a truncation or a replacement, makes it unknown again. The memory is
a small JSON file in the data dir; losing it (or failing to write it) only costs a re-check.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hearth.paths import data_dir, write_json_atomically

_FILE_NAME = "verified-models.json"
_FORMAT = 1
_LIMIT = 64  # files remembered; the oldest are forgotten first


@dataclass(frozen=True, slots=True)
class FileIdentity:
    """What must stay the same for a verified file to still count as verified."""

    path: str
    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def of(cls, path: Path, stat: os.stat_result) -> FileIdentity:
        return cls(str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)

    def matches(self, entry: dict[str, Any]) -> bool:
        return (entry.get("size"), entry.get("mtime_ns"), entry.get("inode")) == (
            self.size,
            self.mtime_ns,
            self.inode,
        )


def recall(identity: FileIdentity) -> dict[str, Any] | None:
    """The summary stored for this exact file, or None if it is unknown or has changed."""
    entry = _load().get(identity.path)
    if not isinstance(entry, dict) or not identity.matches(entry):
        return None
    summary = entry.get("summary")
    return summary if isinstance(summary, dict) else None


def remember(identity: FileIdentity, summary: dict[str, Any]) -> None:
    """Record that this exact file passed the check; a failure to write is not an error."""
    files = _load()
    files.pop(identity.path, None)
    files[identity.path] = {
        "size": identity.size,
        "mtime_ns": identity.mtime_ns,
        "inode": identity.inode,
        "summary": summary,
    }
    kept = dict(list(files.items())[-_LIMIT:])
    # A read-only or full data dir only means the next load checks the file again.
    with contextlib.suppress(OSError):
        write_json_atomically(_memory_path(), {"format": _FORMAT, "files": kept})


def _memory_path() -> Path:
    return data_dir() / _FILE_NAME


def _load() -> dict[str, Any]:
    try:
        stored = json.loads(_memory_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(stored, dict) or stored.get("format") != _FORMAT:
        return {}
    files = stored.get("files")
    return files if isinstance(files, dict) else {}
