"""Loading a local model the way its model card recommends."""

from __future__ import annotations

from pathlib import Path

from hearth.engine.sampling import ModelSampling
from hearth.engine.threads import ThreadPolicy
from hearth.generation import ChatModel
from hearth.models.first_check import check_once
from hearth.models.lookup import installed_models
from hearth.models.prompt_setting import prefix_states

DEFAULT_CONTEXT = 8192


def model_card_sampling(path: Path) -> ModelSampling:
    """The catalog's recommended sampling for this file (thinking and not), if it is listed."""
    for installed in installed_models():
        entry = installed.entry
        if entry is not None and installed.path.resolve() == path.resolve():
            return ModelSampling.from_card(entry.sampling, entry.no_think_sampling)
    return ModelSampling()


def load_chat_model(
    path: Path, n_ctx: int = DEFAULT_CONTEXT, threads: ThreadPolicy | None = None
) -> ChatModel:
    """Load a GGUF with llama.cpp and its model card's sampling; slow, so never on a UI thread.

    `threads` defaults to the automatic policy; `thread_policy()` also reads the saved count.
    """
    from hearth.engine.llama import LlamaCppModel  # loads llama.cpp only when a model is used

    check_once(path)  # a bundled or downloaded file is hashed against its record, once
    return LlamaCppModel(
        path,
        n_ctx=n_ctx,
        sampling=model_card_sampling(path),
        threads=threads,
        prefixes=prefix_states(),
    )


def open_remote_model(base_url: str, model: str | None = None) -> ChatModel:
    """A model served by llama-server, Ollama or llama_cpp.server at `base_url`."""
    from hearth.engine.remote import RemoteModel

    return RemoteModel(base_url, model=model)
