"""PDF and Word documents: the parsers that run in the sandbox, and the zip check before them."""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from hearth.connectors.files.sandbox import ParseRefused

if TYPE_CHECKING:
    from docx.document import Document
    from docx.table import _Cell, _Row
    from pypdf import PdfReader

PAGE_BREAK = "\f"
"""Separates a PDF's pages in its extracted text."""

_ZIP_END = struct.Struct("<4s4H2LH")
_ZIP_DIRECTORY_BYTES = 1 << 20  # a Word document's member list is a few KB
_ZIP_RATIO = 200
_ZIP_RATIO_FLOOR = 1 << 20  # small members may compress absurdly well and still be harmless


def parse_pdf(path: str, max_chars: int) -> str:
    """Each page's text, pages separated by PAGE_BREAK, until `max_chars` are collected."""
    from pypdf import PdfReader  # here, so only the sandbox workers pay for importing it

    reader = PdfReader(path)
    if reader.is_encrypted and not _decrypts_without_password(reader):
        raise ParseRefused("encrypted PDF (needs a password)")
    return _collect((page.extract_text() for page in reader.pages), PAGE_BREAK, max_chars)


def _decrypts_without_password(reader: PdfReader) -> bool:
    try:
        return bool(reader.decrypt(""))
    except Exception:  # AES without pypdf's optional crypto library, or a broken /Encrypt
        return False


def parse_docx(path: str, max_chars: int) -> str:
    """Paragraphs and table cells in document order, one per line; table rows tab-separated."""
    import docx  # here, so only the sandbox workers pay for importing it

    return _collect(_docx_blocks(docx.Document(path)), "\n", max_chars)


def _docx_blocks(container: Document | _Cell) -> Iterator[str]:
    from docx.table import Table

    for block in container.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                yield "\t".join(_row_cells(row))
        else:
            yield block.text


def _row_cells(row: _Row) -> Iterator[str]:
    seen: set[int] = set()
    for cell in row.cells:
        if id(cell._tc) not in seen:  # a merged cell appears once per grid column it spans
            seen.add(id(cell._tc))
            yield "\n".join(_docx_blocks(cell))


def _collect(texts: Iterable[str], separator: str, max_chars: int) -> str:
    parts: list[str] = []
    total = 0
    for text in texts:
        parts.append(text)
        total += len(text) + len(separator)
        if total > max_chars:
            break
    return separator.join(parts)[:max_chars]


def docx_refusal(file: BinaryIO, max_expanded: int) -> str | None:
    """Why a .docx (open in `file`) must not reach the parser, judged from its zip directory.

    Refuses a file that is not a zip, whose member list is huge, whose members would expand past
    `max_expanded` bytes in all, or of which one large member would expand over 200-fold.
    """
    directory = _zip_directory_bytes(file)
    if directory is None:
        return "not a Word document (not a zip archive)"
    if directory > _ZIP_DIRECTORY_BYTES:
        return f"zip bomb: its member list alone is {human_size(directory)}"
    try:
        members = zipfile.ZipFile(file).infolist()
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as error:
        return f"malformed DOCX: {error}"
    expanded = sum(member.file_size for member in members)
    if expanded > max_expanded:
        return f"zip bomb: members would expand to {human_size(expanded)}"
    for member in members:
        ratio = member.file_size // max(member.compress_size, 1)
        if member.file_size > _ZIP_RATIO_FLOOR and ratio > _ZIP_RATIO:
            return f"zip bomb: {member.filename} would expand {ratio}x"
    return None


def _zip_directory_bytes(file: BinaryIO) -> int | None:
    """The central directory's size from the zip's end record, read before zipfile loads it all.

    zipfile finds the end record the same way (the last signature in the final 64 KiB); a zip64
    locator just before it means the real size is recorded elsewhere, so that counts as huge.
    """
    end = file.seek(0, os.SEEK_END)
    file.seek(max(0, end - _ZIP_END.size - 0xFFFF - 20))
    tail = file.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _ZIP_END.size:
        return None
    if at >= 20 and tail[at - 20 : at - 16] == b"PK\x06\x07":
        return 1 << 62
    directory_bytes: int = _ZIP_END.unpack_from(tail, at)[5]
    return directory_bytes


@contextlib.contextmanager
def parseable(file: BinaryIO, max_bytes: int) -> Iterator[Path]:
    """A path a parser process can open that reads exactly the file `file` has open.

    On Linux, the descriptor's entry under /proc, which leads to the open file itself and never
    again through its path. Elsewhere, a private copy of its first `max_bytes`.
    """
    entry = Path(f"/proc/{os.getpid()}/fd/{file.fileno()}")
    if sys.platform.startswith("linux") and entry.exists():
        yield entry
        return
    with tempfile.TemporaryDirectory(prefix="hearth-parse-") as folder:
        copy = Path(folder) / "document"
        file.seek(0)
        with copy.open("wb") as out:
            out.write(file.read(max_bytes))
        yield copy


def human_size(size: int) -> str:
    """`size` bytes the way a person reads it: "512 bytes", "2.0 GB"."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            break
    return f"{value:.1f} {unit}"
