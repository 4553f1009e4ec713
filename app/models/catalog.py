"""The model catalog: typed entries read from `resources/models.toml`."""

from __future__ import annotations

import fnmatch
import functools
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from hearth.errors import CatalogError

CATALOG_RESOURCE = "models.toml"

Entry = TypeVar("Entry", bound=BaseModel)

IMAT_SUFFIX = "-imat"
_REPO_ID = r"^[\w.-]+/[\w.-]+$"


class CatalogEntry(BaseModel):
    """One downloadable (or pip-installed) model file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    label: str = Field(min_length=1)
    # Candidate hub repos, tried in order; `repo = "..."` in the TOML is a one-candidate list.
    repos: tuple[Annotated[str, Field(pattern=_REPO_ID)], ...] = ()
    package: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*$")
    revision: str = Field(default="main", min_length=1)
    file: str = Field(min_length=1)
    quant: str = Field(min_length=1)
    # Approximate, unless `sha256` pins the file: then it is the exact size, and checked.
    size: int = Field(gt=0)
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    license: str = Field(min_length=1)
    default: bool = False
    # The catalog id offered when none of `repos` exists on the hub.
    fallback: str | None = None
    # The model card's sampling values, keyed like GGUF `general.sampling.*` (temp, top_p, ...):
    # `sampling` for thinking turns, `sampling_no_think` (if given) for the others.
    sampling: dict[str, float] = Field(default_factory=dict)
    sampling_no_think: dict[str, float] | None = None

    @model_validator(mode="before")
    @classmethod
    def _repo_is_one_candidate(cls, data: Any) -> Any:
        if isinstance(data, dict) and "repo" in data:
            if "repos" in data:
                raise ValueError("set 'repo' or 'repos', not both")
            data = {**data, "repos": [data["repo"]]}
            del data["repo"]
        return data

    @model_validator(mode="after")
    def _one_source(self) -> CatalogEntry:
        if bool(self.repos) == (self.package is not None):
            raise ValueError("exactly one of 'repo' (or 'repos') or 'package' must be set")
        if self.sha256 is not None and not self.repos:
            raise ValueError("'sha256' pins a hub download, so it needs 'repo'")
        return self

    @property
    def repo(self) -> str | None:
        """The first candidate repo, or None for a package entry."""
        return self.repos[0] if self.repos else None

    @property
    def no_think_sampling(self) -> dict[str, float]:
        """The card's values for turns without thinking (the thinking ones if it has no others)."""
        return self.sampling if self.sampling_no_think is None else self.sampling_no_think

    def matches(self, filename: str) -> bool:
        """Whether a file name matches this entry's glob, with or without an `-imat` suffix.

        Case-insensitive, like hub file names: `botpsy-0.8b-q4_k_m.gguf` matches both
        `BotPsy-0.8B-Q4_K_M.gguf` and `botpsy-0.8b-q4_k_m-imat.gguf`.
        """
        name, pattern = filename.lower(), self.file.lower()
        return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(
            _without_imat(name), pattern
        )


def is_imat(filename: str) -> bool:
    """Whether a file is an importance-matrix quant (`...-imat.gguf`)."""
    stem, _, _ = filename.lower().rpartition(".")
    return stem.endswith(IMAT_SUFFIX)


def _without_imat(name: str) -> str:
    stem, dot, suffix = name.rpartition(".")
    return stem.removesuffix(IMAT_SUFFIX) + dot + suffix if dot else name


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
    _check_fallbacks(entries, origin)
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


def _check_fallbacks(entries: Sequence[CatalogEntry], origin: str) -> None:
    ids = {entry.id for entry in entries}
    for entry in entries:
        if entry.fallback is not None and (entry.fallback not in ids or entry.fallback == entry.id):
            raise CatalogError(
                f"{origin}: entry '{entry.id}', field 'fallback': no other entry has the id"
                f" '{entry.fallback}'"
            )
