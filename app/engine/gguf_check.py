"""Check a GGUF file and summarise it without loading llama.cpp.

Everything here uses the pure-Python `gguf` reader, so a corrupt or hostile file can only ever
raise `ModelFileError`; it can never crash the process inside native code.
"""

from __future__ import annotations

import math
import struct
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gguf import (
    GGML_QUANT_SIZES,
    MODEL_ARCH_NAMES,
    GGMLQuantizationType,
    GGUFReader,
    GGUFValueType,
    LlamaFileType,
    ReaderField,
)
from gguf.gguf_reader import READER_SUPPORTED_VERSIONS

from hearth.errors import ModelFileError

KNOWN_ARCHITECTURES = frozenset(MODEL_ARCH_NAMES.values())
# Magic (4) + version (4) + tensor count (8) + metadata count (8).
_MIN_GGUF_SIZE = 24
_OLD_GGML_MAGICS = {b"lmgg", b"fmgg", b"tjgg", b"algg"}
_NUMERIC_TYPES = {
    GGUFValueType.UINT8, GGUFValueType.INT8, GGUFValueType.UINT16, GGUFValueType.INT16,
    GGUFValueType.UINT32, GGUFValueType.INT32, GGUFValueType.UINT64, GGUFValueType.INT64,
    GGUFValueType.FLOAT32, GGUFValueType.FLOAT64,
}  # fmt: skip
_SAMPLING_PREFIX = "general.sampling."
# Anything the reader raises on garbage input: it indexes, decodes and reshapes raw bytes.
_PARSE_ERRORS = (ValueError, KeyError, IndexError, TypeError, OverflowError, MemoryError)


@dataclass(frozen=True, slots=True)
class GGUFSummary:
    """What Hearth needs to know about a model file before loading it."""

    path: Path
    size: int
    version: int
    architecture: str
    name: str | None
    quantization: str | None
    context_length: int | None
    chat_template: str | None
    bos_token: str | None
    eos_token: str | None
    sampling: dict[str, float]
    tensor_count: int
    vocab_size: int


class _Truncated(Exception):
    def __init__(self, needed: int) -> None:
        super().__init__(needed)
        self.needed = needed


class _CheckedReader(GGUFReader):
    """GGUFReader that stops at the end of the file and reports truncated tensor data."""

    def _get(
        self,
        offset: int,
        dtype: npt.DTypeLike,
        count: int = 1,
        override_order: Literal["I", "S", "<"] | None = None,
    ) -> npt.NDArray[Any]:
        # The stock reader returns empty arrays past the end, so a garbled array length of 2**40
        # would loop for hours instead of failing.
        if offset + np.dtype(dtype).itemsize * int(count) > len(self.data):
            raise ValueError(f"metadata runs past the end of the file at byte {offset:,}")
        return super()._get(offset, dtype, count, override_order)

    def _build_tensors(self, start_offs: int, fields: list[ReaderField]) -> None:
        end = max((_tensor_end(start_offs, field) for field in fields), default=start_offs)
        if end > len(self.data):
            raise _Truncated(end)
        super()._build_tensors(start_offs, fields)


def inspect_gguf(path: Path | str) -> GGUFSummary:
    """Validate a GGUF file and summarise its metadata; ModelFileError says what is wrong."""
    path = Path(path)
    size = _file_size(path)
    version = _read_header(path)
    failure: str
    try:
        return _summarise(_CheckedReader(path), path, size, version)
    except ModelFileError as exc:
        failure = exc.reason
    except _Truncated as exc:
        failure = _truncated_reason(exc.needed, size)
    except _PARSE_ERRORS as exc:
        failure = f"metadata is garbled or cut short, so the file is corrupt ({exc})"
    except OSError as exc:
        failure = f"cannot be read ({exc.strerror or exc})"
    # Every failure is raised here, outside the except blocks, so the traceback and the memory
    # map it references are gone first: on Windows a mapped file cannot be deleted or replaced.
    raise ModelFileError(path, failure)


def _file_size(path: Path) -> int:
    try:
        if path.is_dir():
            raise ModelFileError(path, "is a directory, not a GGUF model file")
        size = path.stat().st_size
    except FileNotFoundError:
        raise ModelFileError(path, "file not found") from None
    except OSError as exc:
        raise ModelFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if size == 0:
        raise ModelFileError(path, "file is empty")
    if size < _MIN_GGUF_SIZE:
        raise ModelFileError(path, f"file is too small to be a GGUF model ({size} bytes)")
    return size


def _read_header(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            header = handle.read(8)
    except OSError as exc:
        raise ModelFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    magic = header[:4]
    if magic in _OLD_GGML_MAGICS:
        raise ModelFileError(path, "is an old GGML/GGJT model; llama.cpp only loads GGUF files")
    if magic != b"GGUF":
        raise ModelFileError(path, "not a GGUF file (it does not start with the GGUF signature)")
    (version,) = struct.unpack("<I", header[4:8])
    if version & 0xFFFF == 0:
        raise ModelFileError(path, "is a big-endian GGUF file, which llama.cpp cannot load here")
    if version not in READER_SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in READER_SUPPORTED_VERSIONS)
        raise ModelFileError(path, f"GGUF version {version} is not supported ({supported} are)")
    return int(version)


def _tensor_end(start: int, field: ReaderField) -> int:
    # A tensor-info field's parts are: name length, name, n_dims, dims, type, offset.
    _, _, _, dims, raw_type, offset = field.parts
    block_size, type_size = GGML_QUANT_SIZES[GGMLQuantizationType(int(raw_type[0]))]
    n_elements = math.prod(int(dim) for dim in dims)
    return start + int(offset[0]) + n_elements * type_size // block_size


def _truncated_reason(needed: int, size: int) -> str:
    return (
        f"file is truncated: its tensor data needs {needed:,} bytes but the file has {size:,}"
        " (an interrupted download or copy?)"
    )


def _summarise(reader: GGUFReader, path: Path, size: int, version: int) -> GGUFSummary:
    tensor_end = max((t.data_offset + t.n_bytes for t in reader.tensors), default=0)
    if tensor_end > size:
        raise _Truncated(tensor_end)
    architecture = _architecture(reader, path)
    tokens = reader.get_field("tokenizer.ggml.tokens")
    if tokens is None or not tokens.data or tokens.types[-1] != GGUFValueType.STRING:
        raise ModelFileError(path, "has no vocabulary (tokenizer.ggml.tokens is missing)")
    return GGUFSummary(
        path=path,
        size=size,
        version=version,
        architecture=architecture,
        name=_string(reader, "general.name"),
        quantization=_quantization(reader),
        context_length=_integer(reader, f"{architecture}.context_length"),
        chat_template=_string(reader, "tokenizer.chat_template"),
        bos_token=_token(reader, tokens, "tokenizer.ggml.bos_token_id"),
        eos_token=_token(reader, tokens, "tokenizer.ggml.eos_token_id"),
        sampling=_sampling(reader),
        tensor_count=len(reader.tensors),
        vocab_size=len(tokens.data),
    )


def _architecture(reader: GGUFReader, path: Path) -> str:
    architecture = _string(reader, "general.architecture")
    if architecture is None:
        raise ModelFileError(path, "has no general.architecture, so it is not a usable model")
    if architecture not in KNOWN_ARCHITECTURES:
        raise ModelFileError(
            path, f"architecture '{architecture}' is not supported by this version of llama.cpp"
        )
    return architecture


def _scalar(reader: GGUFReader, key: str) -> Any:
    field = reader.get_field(key)
    if field is None or not field.types or field.types[0] == GGUFValueType.ARRAY:
        return None
    return field.contents()


def _string(reader: GGUFReader, key: str) -> str | None:
    value = _scalar(reader, key)
    return value if isinstance(value, str) else None


def _integer(reader: GGUFReader, key: str) -> int | None:
    value = _scalar(reader, key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _token(reader: GGUFReader, tokens: ReaderField, key: str) -> str | None:
    token_id = _integer(reader, key)
    if token_id is None or not 0 <= token_id < len(tokens.data):
        return None
    token = tokens.contents(token_id)
    return token if isinstance(token, str) else None


def _quantization(reader: GGUFReader) -> str | None:
    file_type = _integer(reader, "general.file_type")
    if file_type is not None and file_type in LlamaFileType._value2member_map_:
        name = LlamaFileType(file_type).name
        return name.removeprefix("MOSTLY_").removeprefix("ALL_")
    # No (known) file type: report the type holding most of the weights.
    weights: Counter[str] = Counter()
    for tensor in reader.tensors:
        weights[GGMLQuantizationType(tensor.tensor_type).name] += int(tensor.n_bytes)
    return weights.most_common(1)[0][0] if weights else None


def _sampling(reader: GGUFReader) -> dict[str, float]:
    sampling: dict[str, float] = {}
    for key, field in reader.fields.items():
        if key.startswith(_SAMPLING_PREFIX) and field.types and field.types[0] in _NUMERIC_TYPES:
            sampling[key.removeprefix(_SAMPLING_PREFIX)] = float(field.contents())
    return sampling
