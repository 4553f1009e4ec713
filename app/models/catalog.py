"""The model catalog: typed entries read from `resources/models.toml`."""

from __future__ import annotations

import fnmatch
import functools
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from hearth.errors import CatalogError

CATALOG_RESOURCE = "models.toml"

Entry = TypeVar("Entry", bound=BaseModel)


class CatalogEntry(BaseModel):
    """One downloadable (or pip-installed) model file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    label: str = Field(min_length=1)
    repo: str | None = Field(default=None, pattern=r"^[\w.-]+/[\w.-]+$")
    package: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*$")
    revision: str = Field(default="main", min_length=1)
    file: str = Field(min_length=1)
    quant: str = Field(min_length=1)
    size: int = Field(gt=0)
    license: str = Field(min_length=1)
    default: bool = False
    # The model card's sampling values, keyed like GGUF `general.sampling.*` (temp, top_p, ...).
    sampling: dict[str, float] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_source(self) -> CatalogEntry:
        if (self.repo is None) == (self.package is None):
            raise ValueError("exactly one of 'repo' or 'package' must be set")
        return self

    def matches(self, filename: str) -> bool:
        """Whether a file name matches this entry's glob (case-insensitive, like hub file names)."""
        return fnmatch.fnmatchcase(filename.lower(), self.file.lower())


@dataclass(frozen=True, slots=True)
class Catalog:
    """The catalog's entries in file order, with exactly one default."""

    entries: tuple[CatalogEntry, ...]

    def __iter__(self) -> Iterator[CatalogEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def ids(self) -> list[str]:
        """Every entry id, in file order."""
        return [entry.id for entry in self.entries]

    @property
    def default(self) -> CatalogEntry:
        """The recommended entry (the one marked `default = true`)."""
        return next(entry for entry in self.entries if entry.default)

    def get(self, model_id: str) -> CatalogEntry:
        """The entry with this id; CatalogError listing the valid ids otherwise."""
        for entry in self.entries:
            if entry.id == model_id:
                return entry
        raise CatalogError(f"Unknown model '{model_id}'. Known models: {', '.join(self.ids)}.")


def parse_catalog(text: str, origin: str = CATALOG_RESOURCE) -> Catalog:
    """Parse catalog TOML; CatalogError names the entry and field at fault."""
    entries = parse_entries(text, origin, "model", CatalogEntry)
    _check_one_default(entries, origin)
    return Catalog(entries)


def parse_entries(text: str, origin: str, table: str, kind: type[Entry]) -> tuple[Entry, ...]:
    """The `[[table]]` entries of a catalog, each validated as `kind`, with unique ids.

    CatalogError names the entry and the field at fault. The speech catalog shares this.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{origin}: not valid TOML ({exc})") from exc
    raw_entries = data.get(table)
    if not isinstance(raw_entries, list) or not raw_entries:
        raise CatalogError(f"{origin}: no [[{table}]] entries")
    entries = tuple(_parse_entry(raw, index, origin, kind) for index, raw in enumerate(raw_entries))
    _check_unique_ids([str(raw["id"]) for raw in raw_entries], origin)  # validated above
    return entries


def load_catalog(path: Path | None = None) -> Catalog:
    """Load the catalog from `path`, or the bundled `hearth.resources/models.toml`."""
    if path is not None:
        try:
            return parse_catalog(path.read_text(encoding="utf-8"), str(path))
        except OSError as exc:
            raise CatalogError(f"{path}: cannot read the catalog ({exc.strerror})") from exc
    return _bundled_catalog()


@functools.cache
def _bundled_catalog() -> Catalog:
    text = resources.files("hearth.resources").joinpath(CATALOG_RESOURCE).read_text("utf-8")
    return parse_catalog(text)


def _parse_entry(raw: Any, index: int, origin: str, kind: type[Entry]) -> Entry:
    name = _entry_name(raw, index)
    if not isinstance(raw, dict):
        raise CatalogError(f"{origin}: {name} is not a table")
    try:
        return kind.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "(entry)"
        raise CatalogError(f"{origin}: {name}, field '{field}': {error['msg']}") from exc


def _entry_name(raw: Any, index: int) -> str:
    model_id = raw.get("id") if isinstance(raw, dict) else None
    return f"entry '{model_id}'" if isinstance(model_id, str) else f"entry #{index + 1}"


def _check_unique_ids(ids: Sequence[str], origin: str) -> None:
    seen: set[str] = set()
    for entry_id in ids:
        if entry_id in seen:
            raise CatalogError(f"{origin}: entry '{entry_id}', field 'id': duplicate id")
        seen.add(entry_id)


def _check_one_default(entries: Sequence[CatalogEntry], origin: str) -> None:
    defaults = [entry.id for entry in entries if entry.default]
    if len(defaults) != 1:
        found = ", ".join(defaults) or "none"
        raise CatalogError(
            f"{origin}: field 'default' must be true on exactly one entry (found: {found})"
        )
