"""The models as the faces see them: one object for the catalog, files, loading and settings.

Each method hands on to the module that does the work; this is the door, not the room.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from hearth import paths
from hearth.generation import ChatModel, ModelInfo
from hearth.models import (
    Catalog,
    CatalogEntry,
    GGUFSummary,
    InstalledModel,
    ThreadPolicy,
    first_check,
    import_model,
    inspect_gguf,
    installed_models,
    inventory,
    load_catalog,
    load_chat_model,
    naming,
    resolve_model,
    threads_setting,
    verify_model,
)
from hearth.models.first_check import FirstCheck
from hearth.models.identity import package_model_path
from hearth.models.inventory import ModelRow
from hearth.models.loading import DEFAULT_CONTEXT
from hearth.models.lookup import Sidecar, quantization_of, read_sidecar
from hearth.models.prompt_setting import prefix_folder
from hearth.models.speed_history import SpeedHistory

if TYPE_CHECKING:
    from hearth.models.download import ProgressCallback


class Models:
    """What the window and the terminal do with models; making one reads nothing.

    `catalog` stands in for Hearth's own (`resources/models.toml`) in every listing and lookup.
    `speeds` is this computer's usual decode speed per model, to say when a reply was slow.
    """

    def __init__(self, catalog: Catalog | None = None) -> None:
        self._catalog = catalog
        self.speeds = SpeedHistory()

    # What there is

    def catalog(self) -> Catalog:
        """The catalog: the one given, else Hearth's own."""
        return load_catalog() if self._catalog is None else self._catalog

    def folder(self) -> Path:
        """The folder downloaded and imported models go to."""
        return paths.models_dir()

    def installed(self) -> list[InstalledModel]:
        """Every usable model file: bundled, then the user's, then pip packages'."""
        return installed_models(self._catalog)

    def rows(self) -> list[ModelRow]:
        """The Models page's lines: every catalog entry, then files the catalog does not know."""
        return inventory.load_rows(self._catalog)

    def resolve(self, choice: str | Path | None = None) -> Path:
        """The file to load: a path or catalog id, else the best installed model."""
        return resolve_model(choice, catalog=self._catalog)

    def shipped(self, entry: CatalogEntry) -> Path | None:
        """The file a package entry's Python package ships, when that package is installed."""
        return package_model_path(entry.package, entry.file) if entry.package else None

    def quantization(self, path: Path) -> str:
        """The quantization a file's header names, for listings."""
        return quantization_of(path)

    def display_name(self, info: ModelInfo) -> str:
        """The name a person sees for a loaded model; reads the disk, so not on a UI thread."""
        return naming.display_name(info)

    # Loading

    def load(
        self, path: Path, n_ctx: int = DEFAULT_CONTEXT, threads: ThreadPolicy | None = None
    ) -> ChatModel:
        """Load a GGUF as its model card recommends; slow, so never on a UI thread."""
        return load_chat_model(path, n_ctx, threads)

    def load_row(self, row: ModelRow) -> ChatModel:
        """Load a Models page row's file for the window."""
        return inventory.load_row_model(row)

    # Getting and checking files

    def download(
        self,
        entry: CatalogEntry,
        *,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> Path:
        """Download, verify and install an entry's file; `cancel` stops it, keeping the part."""
        from hearth.models.download import download_model  # the hub client: only to download

        return download_model(entry, progress=progress, cancel=cancel)

    def import_file(self, source: Path) -> Path:
        """Check a GGUF file and copy it into the models folder; returns the copy."""
        return import_model(source)

    def import_and_verify(self, source: Path) -> tuple[Path, GGUFSummary]:
        """`import_file`, then re-check the copy."""
        return inventory.import_and_verify(source)

    def verify(self, path: Path) -> GGUFSummary:
        """Re-check a file's structure, and its sha256 if it has an install record."""
        return verify_model(path)

    def inspect(self, path: Path) -> GGUFSummary:
        """A GGUF file's header, checked for structure."""
        return inspect_gguf(path)

    def check_once(self, path: Path) -> FirstCheck:
        """Size and sha256 against the install record, hashing until a stamp vouches for it."""
        return first_check.check_once(path)

    def install_record(self, path: Path) -> Sidecar | None:
        """The record written when the file was installed, or None when it has none."""
        return read_sidecar(path)

    # Settings

    def saved_threads(self) -> int | None:
        """The saved thread count, or None for automatic."""
        return threads_setting.saved_threads()

    def save_threads(self, count: int | None) -> None:
        """Keep `count` threads (None: automatic) for the next model load."""
        threads_setting.save_threads(count)

    def thread_policy(self, *, override: int | None = None) -> ThreadPolicy:
        """`override`, else the saved setting, else the automatic policy."""
        return threads_setting.thread_policy(override=override)

    def apply_threads(self, model: ChatModel | None, policy: ThreadPolicy) -> bool:
        """Use `policy` from the model's next reply; False for a remote model. Not on a UI
        thread: it waits for a reply in progress."""
        return threads_setting.apply_threads(model, policy)

    def prompt_cache_folder(self) -> Path:
        """Where loaded models keep their prompt prefixes' states."""
        return prefix_folder()
