"""Setting llama.cpp up for one GGUF: the backend, the model, its context, what the file says.

`LlamaCppModel` does this once per load; everything after it (replies, prefixes) lives there.
"""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

import llama_cpp
from llama_cpp._internals import LlamaContext, LlamaModel

from hearth.engine.gguf_check import inspect_gguf
from hearth.engine.llama_log import route_llama_log
from hearth.engine.threads import ThreadPolicy
from hearth.errors import ModelFileError

_backend_ready = threading.Lock()
_backend_initialised = False


def _init_backend() -> None:
    global _backend_initialised
    with _backend_ready:
        if not _backend_initialised:
            llama_cpp.llama_backend_init()
            _backend_initialised = True


def load_model(path: Path) -> LlamaModel:
    """The GGUF at `path`, loaded; a file llama.cpp cannot load raises ModelFileError."""
    inspect_gguf(path)  # never hand llama.cpp a file we can see is broken
    _init_backend()
    route_llama_log()
    params = llama_cpp.llama_model_default_params()
    try:
        # verbose=False would point the whole process's stderr and stdout at /dev/null
        # while the file loads, losing what other threads print; the log goes through
        # route_llama_log either way.
        return LlamaModel(path_model=str(path), params=params, verbose=True)
    except ValueError as exc:
        raise ModelFileError(path, f"llama.cpp could not load it ({exc})") from exc


def make_context(
    model: LlamaModel, path: Path, *, n_ctx: int, n_batch: int, threads: ThreadPolicy
) -> tuple[LlamaContext, str]:
    """A context for `model`, and its layout: what shapes a kept state's bytes besides the model.

    A state kept under one layout (flash attention keeps V untransposed) must never load under
    another, so the layout is part of every prefix state's key.
    """
    params = llama_cpp.llama_context_default_params()
    params.n_ctx = n_ctx
    params.n_batch = n_batch
    params.n_ubatch = n_batch
    params.n_threads = threads.decode
    params.n_threads_batch = threads.prefill
    params.no_perf = True
    if not llama_cpp.llama_supports_gpu_offload():
        # On CPU, flash attention's kernel reads a long prompt's cache more slowly: with
        # every built-in tool offered (5K tokens, SmolLM2, 2 cores) prefill ran at 88
        # tok/s with it and 137 without, decoding at 22 and 29; short prompts were even.
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    layout = (
        f"n_ctx={n_ctx} n_batch={n_batch} flash_attn={params.flash_attn_type}"
        f" type_k={params.type_k} type_v={params.type_v} offload_kqv={params.offload_kqv}"
    )
    try:
        return LlamaContext(model=model, params=params, verbose=True), layout
    except ValueError as exc:
        raise ModelFileError(path, f"llama.cpp could not create a context ({exc})") from exc


def describe(model: LlamaModel) -> str:
    """llama.cpp's one-line description of the model; its last word is the quantization."""
    buffer = ctypes.create_string_buffer(256)
    llama_cpp.llama_model_desc(model.model, buffer, len(buffer))
    return buffer.value.decode("utf-8", errors="replace")


def is_rewindable(model: LlamaModel) -> bool:
    """Whether the model's memory can be cut back to a shorter prompt (not recurrent state)."""
    return not (
        llama_cpp.llama_model_is_recurrent(model.model)
        or llama_cpp.llama_model_is_hybrid(model.model)
    )


def sampling_metadata(metadata: dict[str, str]) -> dict[str, float]:
    """The GGUF's own `general.sampling.*` values, by name; unreadable ones are left out."""
    prefix = "general.sampling."
    values: dict[str, float] = {}
    for key, raw in metadata.items():
        if key.startswith(prefix):
            try:
                values[key[len(prefix) :]] = float(raw)
            except ValueError:
                continue
    return values
