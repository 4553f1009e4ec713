"""Real sample files for the files connector's tests and benchmark, written from scratch.

PDFs come from a tiny hand-built writer (one Helvetica font, text lines per page) so that tests
control every byte, including deliberately pathological content streams; .docx files come from
python-docx itself.
"""

from __future__ import annotations

import io
import os
import random
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import docx
import pypdf


def make_text(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write `text` in `encoding` ("utf-8-sig" and "utf-16" write a BOM)."""
    path.write_bytes(text.encode(encoding))
    return path


def make_sparse(path: Path, size: int) -> Path:
    """A file of `size` bytes that takes no disk space: it reads back as NUL bytes."""
    with path.open("wb") as file:
        file.truncate(size)
    return path


def make_sparse_text(path: Path, size: int, head: str) -> Path:
    """A huge sparse file that starts with real text and then stays text (spaces) for a while."""
    make_sparse(path, size)
    with path.open("r+b") as file:
        file.write(head.encode() + b" " * (8 << 20))
    return path


def make_random(path: Path, size: int, seed: int = 0) -> Path:
    """`size` bytes of deterministic noise."""
    path.write_bytes(random.Random(seed).randbytes(size))
    return path


def make_pdf(path: Path, text: str | Sequence[str]) -> Path:
    """A real PDF: one page per string in `text` (a str is one page), one text line per line."""
    pages = [text] if isinstance(text, str) else list(text)
    streams = [_page_content(page) for page in pages]
    path.write_bytes(pdf_bytes(streams))
    return path


def make_slow_pdf(path: Path, operations: int = 2_000_000) -> Path:
    """A small PDF whose one page inflates to `operations` text-drawing operators.

    It stays under pypdf's own decompression limits, so pypdf really parses every operator; that
    takes far longer than any sensible time limit.
    """
    path.write_bytes(pdf_bytes([b"BT /F1 12 Tf 72 720 Td\n" + b"(x) Tj\n" * operations + b"ET"]))
    return path


def make_encrypted_pdf(path: Path, text: str, password: str) -> Path:
    """A real PDF that opens only with `password` (RC4, which pypdf handles on its own)."""
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(pdf_bytes([_page_content(text)])))
    writer.encrypt(password, algorithm="RC4-128")
    writer.write(path)
    return path


def pdf_bytes(contents: Sequence[bytes]) -> bytes:
    """Assemble a PDF from one content stream per page (Flate-compressed)."""
    kids = " ".join(f"{4 + 2 * index} 0 R" for index in range(len(contents)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(contents)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for index, content in enumerate(contents):
        page = (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * index} 0 R >>"
        )
        packed = zlib.compress(content)
        stream = f"<< /Length {len(packed)} /Filter /FlateDecode >>\nstream\n".encode()
        objects += [page.encode(), stream + packed + b"\nendstream"]
    return _pdf_file(objects)


def _page_content(text: str) -> bytes:
    lines = [
        "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*"
        for line in text.splitlines()
    ]
    body = "BT /F1 12 Tf 14 TL 72 720 Td\n" + "\n".join(lines) + "\nET"
    return body.encode("cp1252", errors="replace")


def _pdf_file(objects: Sequence[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def make_docx(
    path: Path, text: str, table: Sequence[Sequence[str]] = (), heading: str | None = None
) -> Path:
    """A real .docx: an optional heading, one paragraph per line of `text`, then `table`."""
    document = docx.Document()
    if heading is not None:
        document.add_heading(heading, level=1)
    for line in text.splitlines():
        document.add_paragraph(line)
    if table:
        grid = document.add_table(rows=len(table), cols=max(len(row) for row in table))
        for cells, row in zip(grid.rows, table, strict=False):
            for cell, value in zip(cells.cells, row, strict=False):
                cell.text = value
    document.save(str(path))
    return path


def make_zip_bomb(path: Path, expanded: int, member: str = "word/document.xml") -> Path:
    """A .docx-shaped zip whose `member` inflates to `expanded` bytes of zeros.

    Zeros deflate about 1000-fold at about 250 MB/s, so a real 1 GB bomb takes some 4 seconds.
    """
    chunk = bytes(16 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        with archive.open(member, "w", force_zip64=True) as stream:
            left = expanded
            while left > 0:
                stream.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
    return path


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    """A plain zip, for .docx files that are zips but not Word documents."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def truncate(path: Path, keep: float) -> Path:
    """Cut `path` down to the first `keep` fraction of its bytes."""
    os.truncate(path, int(path.stat().st_size * keep))
    return path


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types '
    'xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'
)
