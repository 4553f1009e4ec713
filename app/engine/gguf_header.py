"""Parse a GGUF file's header, metadata and tensor index without touching the tensor data.

The start of the file is read with plain reads (more if the metadata turns out longer) and
walked with `struct`. Not memory-mapping it means a file shrinking underneath cannot kill the
process with SIGBUS, and nothing keeps it open on Windows. Every way the bytes can be wrong ends
in `ModelFileError` with a reason a person can act on; no parser internals reach the message.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from gguf import GGML_QUANT_SIZES

from hearth.errors import ModelFileError

SUPPORTED_VERSIONS = (2, 3)
_OLD_GGML_MAGICS = {b"lmgg", b"fmgg", b"tjgg", b"algg"}
_STRING, _ARRAY = 8, 9
# GGUF value type -> struct format; 8 (string) and 9 (array) are variable-sized.
_SCALARS = {
    0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i",
    6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d",
}  # fmt: skip
NUMERIC_TYPES = frozenset(_SCALARS) - {7}
_MAX_DIMS = 4  # GGML_MAX_DIMS
_DEFAULT_ALIGNMENT = 32
_BLOCKS = {int(kind): sizes for kind, sizes in GGML_QUANT_SIZES.items()}
_FIRST_READ = 4 << 20  # holds the metadata of most models; a bigger one is read again
_AGAIN = "download or import it again"

Scalar = int | float | bool | str


@dataclass(frozen=True, slots=True)
class GGUFArray:
    """An array value; only string arrays keep where each item starts."""

    item_type: int
    count: int
    string_offsets: list[int]


@dataclass(frozen=True, slots=True)
class Tensor:
    """One tensor-index entry; `end` is where its data ends in the file."""

    name: str
    tensor_type: int
    n_bytes: int
    end: int


@dataclass(frozen=True, slots=True)
class GGUFHeader:
    """A GGUF file's metadata and tensor index; `string_item` reads array items lazily."""

    version: int
    fields: dict[str, Scalar | GGUFArray]
    types: dict[str, int]
    tensors: list[Tensor]
    data: bytes

    def string_item(self, array: GGUFArray, index: int) -> str:
        start = array.string_offsets[index]
        (length,) = struct.unpack_from("<Q", self.data, start)
        return self.data[start + 8 : start + 8 + length].decode("utf-8", errors="replace")


def corrupt(path: Path, what: str) -> ModelFileError:
    """The one-line error for a damaged file, with what to do about it."""
    return ModelFileError(path, f"file is corrupt: {what}; {_AGAIN}")


def truncated(path: Path, needed: int, size: int) -> ModelFileError:
    return ModelFileError(
        path,
        f"file is truncated: its tensor data needs {needed:,} bytes but the file has {size:,}"
        f" (an interrupted download or copy?); {_AGAIN}",
    )


def read_header(path: Path, size: int) -> GGUFHeader:
    """Read and parse the header of `path`, a file of `size` bytes."""
    limit = min(size, _FIRST_READ)
    while True:
        try:
            with path.open("rb") as handle:
                data = handle.read(limit)
        except OSError as exc:
            raise ModelFileError(path, f"cannot be read ({exc.strerror or exc})") from None
        # A short read means the file shrank since it was measured: it ends where the read did.
        end = size if len(data) == limit else len(data)
        try:
            _check_magic(path, data[:8])
            return _Parser(path, data, end).header()
        except _NeedMore:
            limit = min(end, limit * 4)
        except (struct.error, OverflowError):  # bounds are checked first; this is a backstop
            raise corrupt(path, "its metadata is cut short") from None


class _NeedMore(Exception):
    """The metadata goes on past the bytes read so far (but not past the end of the file)."""


def _check_magic(path: Path, start: bytes) -> None:
    magic = start[:4]
    if magic in _OLD_GGML_MAGICS:
        raise ModelFileError(path, "is an old GGML/GGJT model; llama.cpp only loads GGUF files")
    if magic != b"GGUF":
        raise ModelFileError(path, "not a GGUF file (it does not start with the GGUF signature)")
    (version,) = struct.unpack("<I", start[4:8])
    if version & 0xFFFF == 0:
        raise ModelFileError(path, "is a big-endian GGUF file, which llama.cpp cannot load here")
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise ModelFileError(path, f"GGUF version {version} is not supported ({supported} are)")


class _Parser:
    """Walks the header with bounds checks, so garbled lengths fail at once instead of looping."""

    def __init__(self, path: Path, data: bytes, file_size: int) -> None:
        self.path = path
        self.data = data
        self.file_size = file_size
        self.pos = 8

    def header(self) -> GGUFHeader:
        version = struct.unpack_from("<I", self.data, 4)[0]
        tensor_count, field_count = self.unpack("<Q"), self.unpack("<Q")
        fields: dict[str, Scalar | GGUFArray] = {}
        types: dict[str, int] = {}
        for _ in range(self.bounded(field_count, 12)):
            key = self.text()
            types[key] = self.unpack("<I")
            fields[key] = self.value(types[key], key)
        infos = [self.tensor_info() for _ in range(self.bounded(tensor_count, 24))]
        alignment = self.alignment(fields, types)
        data_start = -(-self.pos // alignment) * alignment
        tensors = [self.tensor(*info, data_start, alignment) for info in infos]
        if len({tensor.name for tensor in tensors}) != len(tensors):
            raise corrupt(self.path, "two tensors have the same name")
        return GGUFHeader(int(version), fields, types, tensors, self.data)

    def need(self, count: int) -> None:
        if self.pos + count > self.file_size:
            raise corrupt(self.path, f"metadata runs past the end of the file at byte {self.pos:,}")
        if self.pos + count > len(self.data):
            raise _NeedMore

    def bounded(self, count: int, item_size: int) -> int:
        self.need(count * item_size)  # each item takes at least `item_size` bytes
        return count

    def unpack(self, fmt: str) -> int:
        self.need(struct.calcsize(fmt))
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return int(value)

    def text(self) -> str:
        length = self.unpack("<Q")
        self.need(length)
        raw = self.data[self.pos : self.pos + length]
        self.pos += length
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise corrupt(
                self.path, f"a metadata string at byte {self.pos:,} is not text"
            ) from None

    def value(self, value_type: int, key: str) -> Scalar | GGUFArray:
        if value_type == _STRING:
            return self.text()
        if value_type == _ARRAY:
            return self.array(key)
        fmt = _SCALARS.get(value_type)
        if fmt is None:
            raise corrupt(self.path, f"metadata '{key}' has an unknown type ({value_type})")
        self.need(struct.calcsize(fmt))
        scalar: Scalar = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return scalar

    def array(self, key: str) -> GGUFArray:
        item_type, count = self.unpack("<I"), self.unpack("<Q")
        if item_type == _STRING:
            return GGUFArray(item_type, count, self.strings(self.bounded(count, 8)))
        if item_type == _ARRAY:
            for _ in range(self.bounded(count, 12)):
                self.array(key)
            return GGUFArray(item_type, count, [])
        fmt = _SCALARS.get(item_type)
        if fmt is None:
            raise corrupt(self.path, f"metadata '{key}' has an unknown type ({item_type})")
        self.pos += self.bounded(count, struct.calcsize(fmt)) * struct.calcsize(fmt)
        return GGUFArray(item_type, count, [])

    def strings(self, count: int) -> list[int]:
        # The hot loop of the whole check (a vocabulary is ~50k strings): kept to locals.
        data, pos, size, unpack = self.data, self.pos, len(self.data), struct.unpack_from
        offsets = []
        for _ in range(count):
            if pos + 8 > size:
                self.pos = pos
                self.need(8)
            offsets.append(pos)
            pos += 8 + unpack("<Q", data, pos)[0]
        self.pos = pos
        self.need(0)
        return offsets

    def tensor_info(self) -> tuple[str, list[int], int, int]:
        name = self.text()
        n_dims = self.unpack("<I")
        if n_dims > _MAX_DIMS:
            raise corrupt(self.path, f"tensor '{name}' claims {n_dims} dimensions")
        dims = [self.unpack("<Q") for _ in range(n_dims)]
        return name, dims, self.unpack("<I"), self.unpack("<Q")

    def alignment(self, fields: dict[str, Scalar | GGUFArray], types: dict[str, int]) -> int:
        alignment = fields.get("general.alignment", _DEFAULT_ALIGNMENT)
        valid = isinstance(alignment, int) and alignment > 0 and alignment & (alignment - 1) == 0
        if "general.alignment" in types and (types["general.alignment"] != 4 or not valid):
            raise corrupt(self.path, "general.alignment is not a power of two")
        return int(alignment) if isinstance(alignment, int) else _DEFAULT_ALIGNMENT

    def tensor(
        self, name: str, dims: list[int], kind: int, offset: int, start: int, alignment: int
    ) -> Tensor:
        sizes = _BLOCKS.get(kind)
        if sizes is None:
            raise corrupt(self.path, f"tensor '{name}' has an unknown data type ({kind})")
        block_size, type_size = sizes
        if dims and dims[0] % block_size:
            raise corrupt(self.path, f"tensor '{name}' does not fit its data type's blocks")
        if offset % alignment:
            raise corrupt(self.path, f"tensor '{name}' starts at a misaligned offset")
        elements = 1
        for dim in dims:
            elements *= dim
        n_bytes = elements * type_size // block_size
        return Tensor(name, kind, n_bytes, start + offset + n_bytes)
