"""Turn a parsed GGUF header into the `GGUFSummary` Hearth needs, checking what a load needs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gguf import MODEL_ARCH_NAMES, GGMLQuantizationType, LlamaFileType

from hearth.engine.gguf_header import (
    NUMERIC_TYPES,
    GGUFArray,
    GGUFHeader,
    read_header,
    truncated,
)
from hearth.engine.gguf_summary import GGUFSummary
from hearth.errors import ModelFileError

KNOWN_ARCHITECTURES = frozenset(MODEL_ARCH_NAMES.values())
_STRING = 8
_SAMPLING_PREFIX = "general.sampling."


def summarise(path: Path, size: int) -> GGUFSummary:
    """Check `path` (already known to exist and be `size` bytes) and summarise it."""
    header = read_header(path, size)
    tensor_end = max((tensor.end for tensor in header.tensors), default=0)
    if tensor_end > size:
        raise truncated(path, tensor_end, size)
    architecture = _architecture(header, path)
    tokens = header.fields.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, GGUFArray) or not tokens.count or tokens.item_type != _STRING:
        raise ModelFileError(path, "has no vocabulary (tokenizer.ggml.tokens is missing)")
    return GGUFSummary(
        path=path,
        size=size,
        version=header.version,
        architecture=architecture,
        name=_string(header, "general.name"),
        quantization=_quantization(header),
        context_length=_integer(header, f"{architecture}.context_length"),
        chat_template=_string(header, "tokenizer.chat_template"),
        bos_token=_token(header, tokens, "tokenizer.ggml.bos_token_id"),
        eos_token=_token(header, tokens, "tokenizer.ggml.eos_token_id"),
        sampling=_sampling(header),
        tensor_count=len(header.tensors),
        vocab_size=tokens.count,
    )


def _architecture(header: GGUFHeader, path: Path) -> str:
    architecture = _string(header, "general.architecture")
    if architecture is None:
        raise ModelFileError(path, "has no general.architecture, so it is not a usable model")
    if architecture not in KNOWN_ARCHITECTURES:
        raise ModelFileError(
            path, f"architecture '{architecture}' is not supported by this version of llama.cpp"
        )
    return architecture


def _string(header: GGUFHeader, key: str) -> str | None:
    value = header.fields.get(key)
    return value if isinstance(value, str) else None


def _integer(header: GGUFHeader, key: str) -> int | None:
    value = header.fields.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _token(header: GGUFHeader, tokens: GGUFArray, key: str) -> str | None:
    token_id = _integer(header, key)
    if token_id is None or not 0 <= token_id < tokens.count:
        return None
    return header.string_item(tokens, token_id)


def _quantization(header: GGUFHeader) -> str | None:
    file_type = _integer(header, "general.file_type")
    if file_type is not None and file_type in LlamaFileType._value2member_map_:
        name = LlamaFileType(file_type).name
        return name.removeprefix("MOSTLY_").removeprefix("ALL_")
    # No (known) file type: report the type holding most of the weights.
    weights: Counter[str] = Counter()
    for tensor in header.tensors:
        weights[GGMLQuantizationType(tensor.tensor_type).name] += tensor.n_bytes
    return weights.most_common(1)[0][0] if weights else None


def _sampling(header: GGUFHeader) -> dict[str, float]:
    sampling: dict[str, float] = {}
    for key, value in header.fields.items():
        if not (key.startswith(_SAMPLING_PREFIX) and header.types[key] in NUMERIC_TYPES):
            continue
        if isinstance(value, int | float):
            sampling[key.removeprefix(_SAMPLING_PREFIX)] = float(value)
    return sampling
