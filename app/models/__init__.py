"""Models: the catalog, GGUF checks, hub downloads and finding the model to load.

Names are imported on first use, from the module that defines them: loading a model file
never imports the hub client that only downloads need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hearth.engine.gguf_check import inspect_gguf
    from hearth.engine.gguf_summary import GGUFSummary
    from hearth.engine.threads import ThreadPolicy
    from hearth.models.catalog import Catalog, CatalogEntry, load_catalog, parse_catalog
    from hearth.models.download import DownloadProgress, ProgressCallback, download_model
    from hearth.models.hub import resolve_remote_file
    from hearth.models.hub_file import RemoteFile
    from hearth.models.loading import load_chat_model, model_card_sampling
    from hearth.models.lookup import (
        InstalledModel,
        import_model,
        installed_models,
        resolve_model,
        test_model_path,
        verify_model,
    )
    from hearth.models.threads_setting import save_threads, saved_threads, thread_policy

_HOME = {
    "inspect_gguf": "hearth.engine.gguf_check",
    "GGUFSummary": "hearth.engine.gguf_summary",
    "ThreadPolicy": "hearth.engine.threads",
    "Catalog": "hearth.models.catalog",
    "CatalogEntry": "hearth.models.catalog",
    "load_catalog": "hearth.models.catalog",
    "parse_catalog": "hearth.models.catalog",
    "DownloadProgress": "hearth.models.download",
    "ProgressCallback": "hearth.models.download",
    "download_model": "hearth.models.download",
    "RemoteFile": "hearth.models.hub_file",
    "resolve_remote_file": "hearth.models.hub",
    "load_chat_model": "hearth.models.loading",
    "model_card_sampling": "hearth.models.loading",
    "InstalledModel": "hearth.models.lookup",
    "import_model": "hearth.models.lookup",
    "installed_models": "hearth.models.lookup",
    "resolve_model": "hearth.models.lookup",
    "test_model_path": "hearth.models.lookup",
    "verify_model": "hearth.models.lookup",
    "save_threads": "hearth.models.threads_setting",
    "saved_threads": "hearth.models.threads_setting",
    "thread_policy": "hearth.models.threads_setting",
}

__all__ = [
    "Catalog",
    "CatalogEntry",
    "DownloadProgress",
    "GGUFSummary",
    "InstalledModel",
    "ProgressCallback",
    "RemoteFile",
    "ThreadPolicy",
    "download_model",
    "import_model",
    "inspect_gguf",
    "installed_models",
    "load_catalog",
    "load_chat_model",
    "model_card_sampling",
    "parse_catalog",
    "resolve_model",
    "resolve_remote_file",
    "save_threads",
    "saved_threads",
    "test_model_path",
    "thread_policy",
    "verify_model",
]


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
