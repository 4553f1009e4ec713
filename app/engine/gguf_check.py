"""Check a GGUF file and summarise it without loading llama.cpp.

Only the header, metadata and tensor index are read (`gguf_header`), never the tensor data, so
a corrupt or hostile file can only ever raise `ModelFileError`; it can never crash the process
inside native code. A file that passed is remembered (`gguf_memory`) until it changes, so
loading a known model costs a `stat` and a small JSON read.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from hearth.engine.gguf_memory import FileIdentity, recall, remember
from hearth.engine.gguf_summary import GGUFSummary
from hearth.errors import ModelFileError

# Magic (4) + version (4) + tensor count (8) + metadata count (8).
_MIN_GGUF_SIZE = 24


def inspect_gguf(path: Path | str) -> GGUFSummary:
    """Validate a GGUF file and summarise its metadata; ModelFileError says what is wrong."""
    path = Path(path)
    stat = _stat(path)
    identity = FileIdentity.of(path, stat)
    known = _from_memory(path, recall(identity))
    if known is not None:
        return known
    # Imported here because the parser pulls in `gguf` and numpy, which a known file never needs.
    from hearth.engine.gguf_parse import summarise

    summary = summarise(path, stat.st_size)
    remember(identity, _to_memory(summary))
    return summary


def _stat(path: Path) -> os.stat_result:
    try:
        if path.is_dir():
            raise ModelFileError(path, "is a directory, not a GGUF model file")
        stat = path.stat()
    except FileNotFoundError:
        raise ModelFileError(path, "file not found") from None
    except OSError as exc:
        raise ModelFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if stat.st_size == 0:
        raise ModelFileError(path, "file is empty")
    if stat.st_size < _MIN_GGUF_SIZE:
        raise ModelFileError(path, f"file is too small to be a GGUF model ({stat.st_size} bytes)")
    return stat


def _to_memory(summary: GGUFSummary) -> dict[str, Any]:
    stored = dataclasses.asdict(summary)
    del stored["path"]  # the memory is keyed by the resolved path; callers get theirs back
    return stored


def _from_memory(path: Path, stored: dict[str, Any] | None) -> GGUFSummary | None:
    if stored is None:
        return None
    try:
        return GGUFSummary(path=path, **stored)
    except TypeError:  # written by another version of Hearth: check the file again
        return None
