"""What a front end lists as models: catalog entries, installed files, paused downloads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hearth import paths
from hearth.generation import ChatModel
from hearth.models import (
    Catalog,
    CatalogEntry,
    GGUFSummary,
    InstalledModel,
    import_model,
    installed_models,
    load_catalog,
    load_chat_model,
    verify_model,
)
from hearth.models.lookup import PART_SUFFIX, quantization_of
from hearth.models.threads_setting import thread_policy


@dataclass(frozen=True)
class ModelRow:
    """One line of the Models table: a catalog entry, an installed file, or both."""

    label: str
    quant: str
    size: int
    license: str
    entry: CatalogEntry | None = None
    installed: InstalledModel | None = None
    partial_bytes: int = 0

    @property
    def key(self) -> str:
        if self.entry is not None:
            return self.entry.id
        assert self.installed is not None
        return str(self.installed.path)

    @property
    def downloadable(self) -> bool:
        return self.installed is None and self.entry is not None and self.entry.repo is not None

    @property
    def path(self) -> Path | None:
        return self.installed.path if self.installed else None


def load_rows(catalog: Catalog | None = None) -> list[ModelRow]:
    """Every catalog entry in catalog order, then installed files the catalog does not know."""
    catalog = load_catalog() if catalog is None else catalog
    installed = installed_models(catalog)
    by_entry: dict[str, InstalledModel] = {}
    for model in installed:
        if model.entry is not None:
            by_entry.setdefault(model.entry.id, model)
    partials = _partial_downloads(paths.models_dir())
    rows = [_catalog_row(entry, by_entry.get(entry.id), partials) for entry in catalog]
    rows += [_file_row(model) for model in installed if model.entry is None]
    return rows


def _catalog_row(
    entry: CatalogEntry, installed: InstalledModel | None, partials: dict[str, int]
) -> ModelRow:
    size = installed.path.stat().st_size if installed else entry.size
    partial = 0 if installed else _partial_for(entry, partials)
    return ModelRow(entry.label, entry.quant, size, entry.license, entry, installed, partial)


def _file_row(model: InstalledModel) -> ModelRow:
    quant = quantization_of(model.path)
    return ModelRow(model.path.name, quant, model.path.stat().st_size, "unknown", None, model)


def _partial_downloads(folder: Path) -> dict[str, int]:
    """File name → bytes kept, for downloads that were cancelled or cut off."""
    found = {}
    for part in folder.glob(f"*.gguf{PART_SUFFIX}"):
        if part.is_file():
            found[part.name.removesuffix(PART_SUFFIX)] = part.stat().st_size
    return found


def _partial_for(entry: CatalogEntry, partials: dict[str, int]) -> int:
    return next((size for name, size in partials.items() if entry.matches(name)), 0)


def load_row_model(row: ModelRow) -> ChatModel:
    """Load the row's file for the window, with its catalog entry's recommended sampling."""
    assert row.path is not None
    return load_chat_model(row.path, threads=thread_policy())


def import_and_verify(source: Path) -> tuple[Path, GGUFSummary]:
    """Copy a .gguf into the models folder, then re-check the copy."""
    installed = import_model(source)
    return installed, verify_model(installed)
