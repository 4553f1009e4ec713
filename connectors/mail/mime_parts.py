"""The MIME parts of untrusted message bytes: spans of one buffer, split and decoded in bounds.

Nothing here raises, and nothing is parsed by the stdlib feedparser, which recurses per
nesting level, checks each line against every open boundary and parses parameters in
quadratic time (3.11). A part is a byte span; its children are found by a linear boundary
search. Both readers of a message walk parts this way: what is shown (`parsing`) and what a
search compares (`search_text`).
"""

from __future__ import annotations

import binascii
import codecs
import re
from email.message import Message

from hearth.connectors.mail.addresses import HeaderFields, clean_text, read_header_fields

MAX_PARTS = 200
MAX_DEPTH = 16
MAX_BOUNDARY_CHARS = 200

MIME_FIELDS = frozenset({"content-type", "content-transfer-encoding", "content-disposition"})
DECODE_ERRORS = (LookupError, UnicodeError, ValueError, TypeError)
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/]")


def part_head(raw: bytes, start: int, end: int, problems: set[str]) -> tuple[HeaderFields, Message]:
    """The part's MIME header fields (and where its body starts) and a `Message` to ask them."""
    head = read_header_fields(raw, start, end, MIME_FIELDS, problems)
    return head, mime_message(head)


def mime_message(head: HeaderFields) -> Message:
    message = Message()
    for name in ("content-type", "content-disposition"):
        value = head.first(name)
        if value:
            message[name] = clean_text(value, 2_000)
    return message


def split_multipart(
    raw: bytes, start: int, end: int, message: Message, problems: set[str], cuts: set[str]
) -> list[tuple[int, int]]:
    """The child spans between boundary lines; preamble and epilogue are dropped."""
    boundary = message.get_boundary()
    if not boundary or len(boundary) > MAX_BOUNDARY_CHARS:
        problems.add("a multipart section has no usable boundary")
        return []
    delimiter = re.compile(
        rb"^--" + re.escape(boundary.encode("utf-8", "replace")) + rb"(--)?[ \t]*\r?$", re.M
    )
    spans: list[tuple[int, int]] = []
    part_start: int | None = None
    for found in delimiter.finditer(raw, start, end):
        if part_start is not None:
            part_end = found.start()
            # The line break before a delimiter belongs to the delimiter, not the part.
            if raw[part_end - 1 : part_end] == b"\n":
                part_end -= 2 if raw[part_end - 2 : part_end - 1] == b"\r" else 1
            spans.append((part_start, max(part_start, part_end)))
            if len(spans) > MAX_PARTS:
                cuts.add(f"it has more than {MAX_PARTS} parts")
                return spans
        if found.group(1):
            return spans
        newline = raw.find(b"\n", found.end(), end)
        part_start = end if newline == -1 else newline + 1
    if part_start is None:
        problems.add("a multipart section has no parts")
    else:
        problems.add("a multipart section never ends")
        spans.append((part_start, end))
    return spans


def decode_part(data: bytes, encoding: str, charset: str, problems: set[str]) -> str:
    """A part's body as text: its transfer encoding undone, read in its character set."""
    if encoding == "base64":
        try:
            data = binascii.a2b_base64(data)
        except binascii.Error:
            problems.add("some encoded text is damaged")
            letters = _NOT_BASE64.sub(b"", data)
            data = binascii.a2b_base64(letters[: len(letters) // 4 * 4])
    elif encoding == "quoted-printable":
        data = binascii.a2b_qp(data)
    try:
        codecs.lookup(charset)
        return data.decode(charset, "replace")
    except DECODE_ERRORS:
        problems.add("a part uses an unknown character set")
        return data.decode("utf-8", "replace")


def part_charset(message: Message) -> str:
    try:
        charset = message.get_content_charset("utf-8")
    except DECODE_ERRORS:
        charset = "utf-8"
    return charset or "utf-8"
