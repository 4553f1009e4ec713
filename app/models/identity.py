"""Whether a model file is a catalog entry's model, judged by what is in it, not its name.

A file imported under any name is still the catalog's model when its content says so: its
install record's sha256 is the entry's pin, or its header and size are those of the file the
entry's package ships. Without the package, the exact size and quantization the catalog
records for it decide.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

from hearth.engine.gguf_check import inspect_gguf
from hearth.engine.gguf_summary import GGUFSummary
from hearth.errors import ModelFileError
from hearth.models.catalog import CatalogEntry


def package_model_path(package: str, pattern: str = "*.gguf") -> Path | None:
    """The GGUF shipped inside an installed Python package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        folders = [Path(location) for location in spec.submodule_search_locations]
    elif spec.origin:
        folders = [Path(spec.origin).parent]
    else:
        return None
    found = sorted(path for folder in folders for path in folder.glob(pattern) if path.is_file())
    return found[0] if found else None


def same_model(path: Path, entry: CatalogEntry, recorded_sha256: str | None) -> bool:
    """Whether `path` holds `entry`'s model; `recorded_sha256` is from its install record."""
    if entry.sha256 is not None:
        return recorded_sha256 == entry.sha256 and _size(path) == entry.size
    if entry.package is None:
        return False  # the catalog records nothing of this file's content to compare
    summary = _summary(path)
    if summary is None:
        return False
    shipped = package_model_path(entry.package, entry.file)
    if shipped is None:
        return summary.size == entry.size and summary.quantization == entry.quant
    theirs = _summary(shipped)
    # The header holds the name, architecture, tokens and tensor index: with the exact size,
    # only a copy of the same file has all of them.
    return theirs is not None and summary == dataclasses.replace(theirs, path=path)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _summary(path: Path) -> GGUFSummary | None:
    try:
        return inspect_gguf(path)
    except ModelFileError:
        return None
