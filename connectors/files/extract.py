"""Text out of the user's files, safely: size caps, a binary sniff, and parsers in a sandbox.

Plain text is read in this process, never more than `Limits.read_bytes` of it. PDF and Word
files are parsed in child processes (`sandbox`) under a time limit and a memory cap, after cheap
checks here have refused files that are too large and .docx files that are zip bombs.
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from hearth.connectors.files.documents import (
    docx_refusal,
    human_size,
    parse_docx,
    parse_pdf,
    parseable,
)
from hearth.connectors.files.sandbox import (
    ParseFailed,
    Parser,
    ParserSandbox,
    SandboxClosed,
    SandboxError,
)

__all__ = ["UNREADABLE", "Extracted", "Limits", "SandboxClosed", "TextExtractor", "kind_of"]

logger = logging.getLogger(__name__)

UNREADABLE = "could not read"
"""How the reason starts when a file could not be opened or read; such files are tried again."""
_MD_SUFFIXES = {".md", ".markdown", ".mdown", ".mkd"}
# Formats that are plain text people search by content; source code is left to other tools.
_TXT_SUFFIXES = {".txt", ".text", ".log", ".csv", ".tsv", ".json", ".yaml", ".yml", ".toml"}
_TXT_SUFFIXES |= {".ini", ".cfg", ".conf", ".rst", ".org", ".tex"}
_LABELS = {"pdf": "PDF", "docx": "DOCX"}
_SNIFF_BYTES = 8192
# Control bytes text has next to none of: not whitespace, backspace or the escape of ANSI colours.
_CONTROL_BYTES = bytes([*range(1, 8), *range(14, 27), *range(28, 32), 127])
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def kind_of(path: Path) -> str:
    """Classify by suffix, ignoring case: "txt", "md", "pdf", "docx" or "other".

    "md" is .md, .markdown, .mdown, .mkd. "txt" is .txt and .text plus the plain-text data and
    notes formats .log, .csv, .tsv, .json, .yaml, .yml, .toml, .ini, .cfg, .conf, .rst, .org,
    .tex. Legacy .doc and everything else is "other".
    """
    suffix = path.suffix.lower()
    if suffix in _MD_SUFFIXES:
        return "md"
    if suffix in _TXT_SUFFIXES:
        return "txt"
    return suffix[1:] if suffix in (".pdf", ".docx") else "other"


@dataclass(frozen=True)
class Limits:
    """Caps that keep one hostile or huge file from hanging or bloating the indexer."""

    read_bytes: int = 4 << 20
    parse_bytes: int = 64 << 20
    text_chars: int = 500_000
    parse_seconds: float = 10.0
    parse_memory_mb: int = 768
    zip_members_bytes: int = 256 << 20


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Extracted:
    """A file's text; `skipped` says why there is none. `truncated` when a cap cut it short."""

    kind: str
    text: str
    skipped: str | None = None
    truncated: bool = False


class TextExtractor:
    """Thread-safe text extraction; PDF and Word parser processes start on first use."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS, workers: int = 2) -> None:
        self.limits = limits
        self._sandbox = ParserSandbox(workers, limits.parse_memory_mb)

    def extract(self, path: Path, opened: int | None = None) -> Extracted:
        """The text of `path`, or why it was skipped; never raises for a bad or unreadable file.

        With `opened` (a descriptor of `path`, which the caller keeps and closes) the text is
        read from that descriptor and `path` is never opened again, so nothing swapped in at
        `path` meanwhile is read.

        Raises:
            SandboxClosed: `close()` was called before or during a PDF or Word parse.
        """
        kind = kind_of(path)
        try:
            return self._extract(kind, path, opened)
        except OSError as error:
            return _skip(kind, path, f"{UNREADABLE}: {error.strerror or error}")

    def close(self) -> None:
        """Stop the parser processes, abandoning parses in progress; idempotent."""
        self._sandbox.close()

    def __enter__(self) -> TextExtractor:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _extract(self, kind: str, path: Path, opened: int | None) -> Extracted:
        if kind == "other":
            return Extracted(kind, "")  # nothing to extract is not a failure
        with _open_regular(path, opened) as file:
            if file is None:
                return _skip(kind, path, "not a regular file")
            if kind in ("txt", "md"):
                return self._read_text(kind, path, file)
            size = os.fstat(file.fileno()).st_size
            if size > self.limits.parse_bytes:
                return _skip(kind, path, f"too large to parse ({human_size(size)})")
            if kind == "docx":
                file.seek(0)
                refusal = docx_refusal(file, self.limits.zip_members_bytes)
                if refusal is not None:
                    return _skip(kind, path, refusal, logging.WARNING)
            with parseable(file, self.limits.parse_bytes) as source:
                return self._parse(kind, path, source, parse_pdf if kind == "pdf" else parse_docx)

    def _read_text(self, kind: str, path: Path, file: BinaryIO) -> Extracted:
        limit = self.limits.read_bytes
        data = file.read(limit)
        complete = len(data) < limit or os.fstat(file.fileno()).st_size <= limit
        text = decode_text(data, complete)
        if text is None:
            return _skip(kind, path, "binary content")
        return self._kept(kind, text, truncated=not complete)

    def _parse(self, kind: str, path: Path, source: Path, parse: Parser) -> Extracted:
        limits = self.limits
        try:
            text = self._sandbox.run(parse, source, limits.text_chars + 1, limits.parse_seconds)
        except ParseFailed as error:
            return _skip(kind, path, f"malformed {_LABELS[kind]}: {error}", logging.WARNING)
        except SandboxError as error:
            return _skip(kind, path, str(error), logging.WARNING)
        return self._kept(kind, text, truncated=False)

    def _kept(self, kind: str, text: str, truncated: bool) -> Extracted:
        # NULs end strings in SQLite's C API and lone surrogates (from broken PDF fonts) cannot
        # be encoded to UTF-8 at all; either would break whatever stores the text.
        text = text.replace("\0", "").encode("utf-8", "replace").decode("utf-8")
        cap = self.limits.text_chars
        return Extracted(kind, text[:cap], truncated=truncated or len(text) > cap)


def decode_text(data: bytes, complete: bool = True) -> str | None:
    """Decode a text file's leading bytes, or None when they look binary.

    A BOM decides the encoding. Otherwise UTF-8; UTF-8 with a rare bad byte keeps U+FFFD for it;
    anything else is cp1252 (Windows' superset of latin-1's letters), then latin-1. When the data
    is only the start of the file (`complete` false), a character cut off at the end is dropped.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom) :], codec, complete, "replace")
    if _looks_binary(data[:_SNIFF_BYTES]):
        return None
    try:
        return _decode(data, "utf-8", complete, "strict")
    except UnicodeDecodeError:
        lenient = _decode(data, "utf-8", complete, "replace")
    if lenient.count("\ufffd") * 1000 <= len(data):
        return lenient
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _decode(data: bytes, codec: str, complete: bool, errors: str) -> str:
    decoder = codecs.getincrementaldecoder(codec)(errors)
    return decoder.decode(data, final=complete)


def _looks_binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls * 20 > len(head)


@contextlib.contextmanager
def _open_regular(path: Path, opened: int | None) -> Iterator[BinaryIO | None]:
    """`path` open for reading, or None unless it is a regular file; opening a FIFO never blocks.

    Given `opened`, reads a duplicate of it and leaves `opened` to its owner.
    """
    if opened is None:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
    else:
        fd = os.dup(opened)
    if stat.S_ISREG(os.fstat(fd).st_mode):
        with os.fdopen(fd, "rb") as file:
            yield file
    else:
        os.close(fd)
        yield None


def _skip(kind: str, path: Path, reason: str, level: int = logging.INFO) -> Extracted:
    logger.log(level, "Skipped %s: %s", path, reason)
    return Extracted(kind, "", reason)
