"""The model state of a prompt's fixed prefix (system text and tools), computed once and kept.

Every conversation starts with the same system text and, for a given set of tools, the same
tool schemas; reading them is most of a first reply's wait (thousands of tokens). Their state
after reading, from llama.cpp's sequence-state API, is kept in memory across conversations and
on disk across restarts, so a new conversation loads it instead. This works alike for
attention-only models and for hybrid ones whose recurrent state cannot be partly rewound: a
state is always the whole sequence at the prefix's end.

A state is keyed by everything that shapes it: the model file, the chat template, the prefix's
tokens (system text, tools), llama.cpp's build and the context's settings. A file that is
stale, cut short or damaged, or whose header names another key, is refused with one debug
line and removed; the prefix is then read again. The disk folder is capped in size, least
recently used first out.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import mmap
import os
import struct
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import xxhash

from hearth.paths import write_bytes_atomically

log = logging.getLogger(__name__)

MAGIC = b"HEARTH PREFIX STATE\n"
VERSION = 1
SUFFIX = ".state"
_HEAD = struct.Struct("<II")  # version, header length
_BODY = struct.Struct("<Q16s")  # payload length, xxh3-128 digest of the payload
DEFAULT_DISK_BYTES = 1024 * 2**20
DEFAULT_MEMORY_BYTES = 384 * 2**20
_SAMPLE = 2**20

State = bytes | bytearray | memoryview


def file_identity(path: Path) -> str:
    """A model or library file's identity: its size and a hash of its first and last MiB.

    Cheap enough for every load of a multi-gigabyte file, and it covers a GGUF's header (the
    architecture, every tensor's name, type and shape), so another model never matches.
    """
    digest = xxhash.xxh3_128()
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        digest.update(str(size).encode())
        digest.update(handle.read(_SAMPLE))
        handle.seek(max(0, size - _SAMPLE))
        digest.update(handle.read(_SAMPLE))
    return digest.hexdigest()


@functools.cache
def llama_build() -> str:
    """Which llama.cpp computes the states: the binding's version, its library, its CPU
    features. A state from another build may not load, or may load wrong."""
    import llama_cpp
    import llama_cpp.llama_cpp as bindings

    library = Path(bindings._lib._name)  # the only record of which file was loaded
    system = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    return f"{llama_cpp.__version__} {file_identity(library)} {system.strip()}"


@dataclass(frozen=True, slots=True)
class PrefixKey:
    """Everything a prefix's state depends on; a state loads only under its exact key."""

    model: str
    template: str
    build: str
    context: str
    tokens: str
    count: int

    @classmethod
    def of(
        cls, *, model: str, template: str, build: str, context: str, tokens: Sequence[int]
    ) -> PrefixKey:
        packed = struct.pack(f"<{len(tokens)}i", *tokens)
        return cls(
            model,
            xxhash.xxh3_128_hexdigest(template.encode("utf-8")),
            build,
            context,
            xxhash.xxh3_128_hexdigest(packed),
            len(tokens),
        )

    @property
    def header(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode("utf-8")

    @property
    def file_name(self) -> str:
        return xxhash.xxh3_128_hexdigest(self.header) + SUFFIX


class PrefixStates:
    """Prefix states in memory (least recently used dropped past `memory_bytes`) and in
    `folder` (None: memory only), whose files are capped at `disk_bytes` in all."""

    def __init__(
        self,
        folder: Path | None,
        *,
        disk_bytes: int = DEFAULT_DISK_BYTES,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
    ) -> None:
        self.folder = folder
        self.disk_bytes = disk_bytes
        self.memory_bytes = memory_bytes
        self._memory: OrderedDict[PrefixKey, State] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: PrefixKey) -> tuple[State, str] | None:
        """The state kept for `key` and where it came from ("memory", "disk"), or None."""
        with self._lock:
            state = self._memory.get(key)
            if state is not None:
                self._memory.move_to_end(key)
                return state, "memory"
        state = self._read(key)
        if state is None:
            return None
        self._remember(key, state)
        return state, "disk"

    def put(self, key: PrefixKey, state: State) -> None:
        """Keep `state` for `key` in memory and on disk; a full disk only costs the copy."""
        self._remember(key, state)
        if self.folder is None or len(state) > self.disk_bytes:
            return
        path = self.folder / key.file_name
        body = _BODY.pack(len(state), xxhash.xxh3_128_digest(state))
        try:
            write_bytes_atomically(
                path,
                [MAGIC, _HEAD.pack(VERSION, len(key.header)), key.header, body, memoryview(state)],
            )
        except OSError as error:
            log.debug("prefix state not kept on disk: %s", error)
            return
        self._evict(keep=path)

    def discard(self, key: PrefixKey) -> None:
        """Forget a state llama.cpp refused to load."""
        with self._lock:
            self._memory.pop(key, None)
        if self.folder is not None:
            _remove(self.folder / key.file_name)

    def _remember(self, key: PrefixKey, state: State) -> None:
        with self._lock:
            self._memory[key] = state
            self._memory.move_to_end(key)
            total = sum(len(kept) for kept in self._memory.values())
            while total > self.memory_bytes and len(self._memory) > 1:
                _, dropped = self._memory.popitem(last=False)
                total -= len(dropped)

    def _read(self, key: PrefixKey) -> State | None:
        if self.folder is None:
            return None
        path = self.folder / key.file_name
        try:
            # Mapped, not read: the page cache holds it once, and a new conversation right
            # after a restart skips copying 100 MB. Files are only ever replaced whole
            # (renamed over), never cut in place, so a mapping stays valid while it is used.
            with path.open("rb") as handle:
                mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:  # an empty file cannot be mapped
            _refuse(path, error)
            return None
        try:
            state = _read_state(mapped, key)
        except (ValueError, struct.error) as error:
            mapped.close()  # Windows keeps a mapped file from being removed
            _refuse(path, error)
            return None
        os.utime(path)  # most recently used: evicted last
        return state

    def _evict(self, *, keep: Path) -> None:
        assert self.folder is not None
        files = []
        for path in self.folder.glob(f"*{SUFFIX}"):
            try:
                info = path.stat()
            except FileNotFoundError:
                continue  # another process evicted it
            files.append((info.st_mtime_ns, info.st_size, path))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.disk_bytes:
                break
            if path != keep:
                _remove(path)
                total -= size


def _refuse(path: Path, error: Exception) -> None:
    log.debug("refused prefix state %s: %s", path.name, error)
    _remove(path)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):  # gone already, or still mapped by another process
        path.unlink(missing_ok=True)


def _read_state(mapped: mmap.mmap, key: PrefixKey) -> memoryview:
    """The payload of a mapped state file, checked against `key`, without copying it."""
    end = len(MAGIC) + _HEAD.size
    if mapped[: len(MAGIC)] != MAGIC:
        raise ValueError("not a prefix state")
    version, header_length = _HEAD.unpack(mapped[len(MAGIC) : end])
    if version != VERSION:
        raise ValueError(f"format {version}, not {VERSION}")
    header = mapped[end : end + header_length]
    if header != key.header:
        stored = json.loads(header)
        differs = sorted(name for name, value in asdict(key).items() if stored.get(name) != value)
        raise ValueError(f"made for another {', '.join(differs) or 'key'}")
    start = end + header_length + _BODY.size
    length, digest = _BODY.unpack(mapped[start - _BODY.size : start])
    if len(mapped) != start + length:
        raise ValueError("cut short or too long")
    state = memoryview(mapped)[start:]
    if xxhash.xxh3_128_digest(state) != digest:
        state.release()
        raise ValueError("damaged (checksum differs)")
    return state
