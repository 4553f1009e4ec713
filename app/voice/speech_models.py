"""The speech model catalog (`resources/speech_models.toml`) and the Whisper folders installed here.

A downloaded model is a folder `speech/<id>/` in the models folder holding the files and an
install record, `hearth-speech.json`, written last: a folder without a complete record is never
used. Downloads are staged in hidden folders (`.<id>.partial`), which are never listed.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hearth import paths
from hearth.errors import CatalogError, ChecksumMismatch
from hearth.models.catalog import parse_entries
from hearth.models.hub_file import DigestKind, RemoteFile
from hearth.models.lookup import sha256_file
from hearth.voice.errors import SpeechModelError
from hearth.voice.settings import Language, Size, VoiceSettings

CATALOG_RESOURCE = "speech_models.toml"
RECORD = "hearth-speech.json"
# What a CTranslate2 Whisper folder cannot do without; the rest is checked through the record.
REQUIRED_FILES = ("model.bin", "config.json")

SpeechSource = Literal["bundled", "user", "package"]


class SpeechEntry(BaseModel):
    """One Whisper model Hearth can download (or find in a pip package)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    label: str = Field(min_length=1)
    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    revision: str = Field(default="main", min_length=1)
    size: Size
    language: Language
    bytes: int = Field(gt=0)
    license: str = Field(min_length=1)
    package: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*$")
    package_folder: str = Field(default=".", min_length=1)


@dataclass(frozen=True, slots=True)
class InstalledSpeechModel:
    """A usable Whisper folder, where it came from, and its catalog entry."""

    entry: SpeechEntry
    path: Path
    source: SpeechSource


@dataclass(frozen=True, slots=True)
class RecordedFile:
    """One file of a downloaded model, as its install record lists it."""

    name: str
    size: int
    digest_kind: DigestKind
    digest: str

    @classmethod
    def of(cls, remote: RemoteFile) -> RecordedFile:
        return cls(remote.name, remote.size, remote.digest_kind, remote.digest)


def parse_speech_catalog(text: str, origin: str = CATALOG_RESOURCE) -> tuple[SpeechEntry, ...]:
    """Parse the speech catalog; CatalogError names the entry and field at fault."""
    entries = parse_entries(text, origin, "speech_model", SpeechEntry)
    choices: set[tuple[str, str]] = set()
    for entry in entries:
        if (entry.size, entry.language) in choices:
            raise CatalogError(
                f"{origin}: entry '{entry.id}', field 'size': another entry already has size"
                f" '{entry.size}' with language '{entry.language}'"
            )
        choices.add((entry.size, entry.language))
    return entries


@functools.cache
def speech_catalog() -> tuple[SpeechEntry, ...]:
    """Hearth's speech models, in the order the Models page lists them."""
    text = resources.files("hearth.resources").joinpath(CATALOG_RESOURCE).read_text("utf-8")
    return parse_speech_catalog(text)


def speech_entry(model_id: str) -> SpeechEntry:
    """The entry with this id; CatalogError listing the known ids otherwise."""
    for entry in speech_catalog():
        if entry.id == model_id:
            return entry
    known = ", ".join(entry.id for entry in speech_catalog())
    raise CatalogError(f"Unknown speech model '{model_id}'. Known speech models: {known}.")


def entry_for(settings: VoiceSettings) -> SpeechEntry:
    """The speech model the settings choose (their size and language)."""
    for entry in speech_catalog():
        if (entry.size, entry.language) == (settings.size, settings.language):
            return entry
    raise CatalogError(
        f"{CATALOG_RESOURCE} has no speech model of size '{settings.size}' for language"
        f" '{settings.language}'."
    )


def speech_models_dir() -> Path:
    """The folder holding downloaded speech models, one folder per model id."""
    path = paths.models_dir() / "speech"
    path.mkdir(parents=True, exist_ok=True)
    return path


def installed_speech_models() -> list[InstalledSpeechModel]:
    """Every complete speech model folder: bundled first, then downloaded, then from packages."""
    found: list[InstalledSpeechModel] = []
    bundle = paths.bundle_dir()
    if bundle is not None:
        for entry in speech_catalog():
            folder = bundle / "models" / "speech" / entry.id
            if _has_required_files(folder):
                found.append(InstalledSpeechModel(entry, folder, "bundled"))
    downloads = paths.models_dir() / "speech"
    for entry in speech_catalog():
        folder = downloads / entry.id
        if _is_complete_download(folder):
            found.append(InstalledSpeechModel(entry, folder, "user"))
    for entry in speech_catalog():
        shipped = package_folder(entry)
        if shipped is not None and _has_required_files(shipped):
            found.append(InstalledSpeechModel(entry, shipped, "package"))
    return found


def find_speech_model(settings: VoiceSettings) -> InstalledSpeechModel | None:
    """The installed folder of the model the settings choose, the best source first."""
    wanted = entry_for(settings)
    return next((m for m in installed_speech_models() if m.entry == wanted), None)


def package_folder(entry: SpeechEntry) -> Path | None:
    """Where the entry's pip package keeps the model, found without importing the package."""
    if entry.package is None:
        return None
    try:
        spec = importlib.util.find_spec(entry.package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / entry.package_folder


def _has_required_files(folder: Path) -> bool:
    return all((folder / name).is_file() for name in REQUIRED_FILES)


def read_record(folder: Path) -> list[RecordedFile] | None:
    """The files a downloaded model's record lists; None when there is no usable record."""
    try:
        data = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        files = [
            RecordedFile(str(f["name"]), int(f["size"]), f["digest_kind"], str(f["digest"]))
            for f in data["files"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    valid = all(f.digest_kind in ("sha256", "git-sha1") and "/" not in f.name for f in files)
    return files if valid else None


def _is_complete_download(folder: Path) -> bool:
    files = read_record(folder)
    if files is None or not {f.name for f in files}.issuperset(REQUIRED_FILES):
        return False
    return all(size_of(folder / f.name) == f.size for f in files)


def size_of(path: Path) -> int | None:
    """A file's size; None when it is missing or not a file."""
    try:
        return path.stat().st_size if path.is_file() else None
    except OSError:
        return None


def verify_speech_model(model: InstalledSpeechModel) -> None:
    """Re-hash a downloaded model against its record; ChecksumMismatch if a file changed.

    Bundled and package folders have no record: only their required files are checked.
    """
    if model.source != "user":
        if not _has_required_files(model.path):
            raise SpeechModelError(
                f"The speech model in {model.path} is missing {' or '.join(REQUIRED_FILES)};"
                " reinstall Hearth or the package that provides it."
            )
        return
    files = read_record(model.path)
    if files is None:
        raise SpeechModelError(
            f"The install record of {model.path} is missing or unreadable. Download"
            f" {model.entry.label} again on the Models page."
        )
    for recorded in files:
        if not file_matches(model.path / recorded.name, recorded):
            raise ChecksumMismatch(
                f"{recorded.name} in {model.path} no longer matches the checksum recorded when"
                f" it was downloaded, so it is damaged. Download {model.entry.label} again."
            )


def file_matches(path: Path, recorded: RecordedFile) -> bool:
    """Whether a file has the recorded size and digest."""
    if size_of(path) != recorded.size:
        return False
    remote = RemoteFile("", "", recorded.name, "", recorded.size, "", recorded.digest_kind)
    return sha256_file(path, hasher=remote.new_hasher()) == recorded.digest
