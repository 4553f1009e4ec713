"""Models: the catalog, GGUF checks, hub downloads and finding the model to load."""

from hearth.engine.gguf_check import inspect_gguf
from hearth.engine.gguf_summary import GGUFSummary
from hearth.engine.threads import ThreadPolicy
from hearth.models.catalog import Catalog, CatalogEntry, load_catalog, parse_catalog
from hearth.models.download import DownloadProgress, ProgressCallback, download_model
from hearth.models.hub import RemoteFile, resolve_remote_file
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
