"""Loading a local model the way its model card recommends."""

from __future__ import annotations

from pathlib import Path

from hearth.engine.sampling import Sampling
from hearth.engine.threads import ThreadPolicy
from hearth.generation import ChatModel
from hearth.models.lookup import installed_models

DEFAULT_CONTEXT = 8192


def model_card_sampling(path: Path) -> Sampling:
    """The catalog's recommended sampling for this file, if it is a catalog model."""
    for installed in installed_models():
        if installed.entry is not None and installed.path.resolve() == path.resolve():
            return Sampling().with_gguf(installed.entry.sampling)
    return Sampling()


def load_chat_model(
    path: Path, n_ctx: int = DEFAULT_CONTEXT, threads: ThreadPolicy | None = None
) -> ChatModel:
    """Load a GGUF with llama.cpp and its model card's sampling; slow, so never on a UI thread.

    `threads` defaults to the headless policy; a window passes `thread_policy(window=True)`.
    """
    from hearth.engine.llama import LlamaCppModel  # loads llama.cpp only when a model is used

    return LlamaCppModel(path, n_ctx=n_ctx, sampling=model_card_sampling(path), threads=threads)
