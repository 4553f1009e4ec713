"""Untrusted message bytes made into safe values: bounded MIME walking and strict headers.

Nothing here raises. The stdlib feedparser is not used: it recurses per nesting level, checks
each line against every open boundary and parses parameters in quadratic time (3.11). Parts
are byte spans of one buffer, found by a linear boundary search and walked iteratively under
caps and a cooperative deadline. Attachments are listed, never decoded.
"""

from __future__ import annotations

import binascii
import codecs
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import Message

from hearth.connectors.mail.addresses import (
    HeaderFields,
    clean_text,
    decode_text,
    header_addresses,
    header_date,
    read_header_fields,
)
from hearth.connectors.mail.concerns import hidden_concern
from hearth.connectors.mail.objects import Attachment, Concern, Envelope, ParsedBody
from hearth.connectors.mail.rendering import render_html, strip_invisible

MAX_RAW_BYTES = 2_000_000
MAX_PARTS = 200
MAX_DEPTH = 16
MAX_TEXT_CHARS = 100_000
MAX_FILENAME_CHARS = 200
MAX_BOUNDARY_CHARS = 200

_MIME_FIELDS = frozenset({"content-type", "content-transfer-encoding", "content-disposition"})
_ENVELOPE_FIELDS = frozenset(
    {"from", "reply-to", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"}
)
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/]")
_DECODE_ERRORS = (LookupError, UnicodeError, ValueError, TypeError)


@dataclass
class _Walk:
    """What the walk has gathered so far."""

    texts: list[str] = field(default_factory=list)
    text_chars: int = 0
    attachments: list[Attachment] = field(default_factory=list)
    hidden_chars: int = 0
    problems: set[str] = field(default_factory=set)
    cuts: set[str] = field(default_factory=set)

    def add_text(self, text: str) -> None:
        if self.text_chars >= MAX_TEXT_CHARS:
            self.cuts.add("the text is too long")
            return
        self.texts.append(text)
        self.text_chars += len(text)

    def result(self) -> ParsedBody:
        text = "\n\n".join(piece.strip() for piece in self.texts if piece.strip())
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS]
            self.cuts.add("the text is too long")
        concerns: list[Concern] = []
        hidden = hidden_concern(self.hidden_chars)
        if hidden is not None:
            concerns.append(hidden)
        if self.problems:
            concerns.append(
                Concern(
                    "malformed",
                    _sentence(
                        "This message is not well-formed, so parts may be missing", self.problems
                    ),
                )
            )
        if self.cuts:
            concerns.append(Concern("truncated", _sentence("Only part of it is shown", self.cuts)))
        return ParsedBody(text, tuple(self.attachments), tuple(concerns), self.hidden_chars)


def parse_body(raw: bytes, *, deadline_s: float = 5.0) -> ParsedBody:
    """The readable text, attachment list and concerns of a whole raw message; never raises."""
    started = time.monotonic()
    walk = _Walk()
    if len(raw) > MAX_RAW_BYTES:
        raw = raw[:MAX_RAW_BYTES]
        walk.cuts.add("the message is larger than 2 MB")
    pending: list[tuple[int, int, int]] = [(0, len(raw), 0)]
    visited = 0
    while pending:
        if time.monotonic() - started >= deadline_s:
            walk.cuts.add("reading it took too long")
            break
        if visited >= MAX_PARTS:
            walk.cuts.add(f"it has more than {MAX_PARTS} parts")
            break
        visited += 1
        start, end, depth = pending.pop()
        children = _visit(raw, start, end, depth, walk)
        pending.extend(
            (child_start, child_end, depth + 1) for child_start, child_end in reversed(children)
        )
    return walk.result()


def parse_headers(
    raw_headers: bytes, *, folder: str, uid: int, flags: Sequence[str] = (), size: int = 0
) -> Envelope:
    """An envelope from raw header bytes; unreadable addresses give () and no sender."""
    head = read_header_fields(raw_headers, 0, len(raw_headers), _ENVELOPE_FIELDS, set())
    senders, _ = header_addresses(head, "from")
    subject, _ = strip_invisible(decode_text(head.first("subject")))
    return Envelope(
        folder=folder,
        uid=uid,
        message_id=clean_text(head.first("message-id"), 998),
        subject=subject,
        sender=senders[0] if len(senders) == 1 else None,
        reply_to=header_addresses(head, "reply-to")[0],
        to=header_addresses(head, "to")[0],
        cc=header_addresses(head, "cc")[0],
        date=header_date(head.first("date")),
        flags=tuple(flags),
        size=size,
        in_reply_to=clean_text(head.first("in-reply-to"), 998),
        references=clean_text(head.first("references"), 8_000),
    )


def header_concerns(raw_headers: bytes) -> tuple[Concern, ...]:
    """A "malformed" concern for each of From/Reply-To that cannot be read one way only."""
    head = read_header_fields(raw_headers, 0, len(raw_headers), _ENVELOPE_FIELDS, set())
    concerns: list[Concern] = []
    for name, label in (("from", "From"), ("reply-to", "Reply-To")):
        found, problem = header_addresses(head, name)
        if problem is None and name == "from" and len(found) > 1:
            problem = f"it names {len(found)} senders"
        if problem is not None:
            text = f"the {label} address cannot be read one way only: {problem}"
            concerns.append(Concern("malformed", text))
    return tuple(concerns)


def _visit(raw: bytes, start: int, end: int, depth: int, walk: _Walk) -> list[tuple[int, int]]:
    """Handle one part; return the spans of its children to walk next."""
    head = read_header_fields(raw, start, end, _MIME_FIELDS, walk.problems)
    message = _mime_message(head)
    content_type = message.get_content_type()
    filename = _filename(message)
    if content_type.startswith("multipart/") and filename is None:
        if depth >= MAX_DEPTH:
            walk.problems.add("parts are nested too deeply, the deepest were not read")
            return []
        children = _split_multipart(raw, head.body_start, end, message, walk)
        if content_type == "multipart/alternative" and children:
            return [_preferred(raw, children)]
        return children
    disposition = (message.get_content_disposition() or "").lower()
    encoding = head.first("content-transfer-encoding").strip().lower()
    if (
        filename is not None
        or disposition == "attachment"
        or content_type not in ("text/plain", "text/html")
    ):
        size = _encoded_size(raw, head.body_start, end, encoding)
        walk.attachments.append(Attachment(_safe_filename(filename or ""), content_type, size))
        return []
    charset = _charset(message)
    text = _decode_part(raw[head.body_start : end], encoding, charset, walk.problems)
    if content_type == "text/html":
        rendered = render_html(text)
        walk.hidden_chars += rendered.hidden_chars
        walk.add_text(rendered.text)
    else:
        visible, hidden = strip_invisible(text)
        walk.hidden_chars += hidden
        walk.add_text(visible)
    return []


def _mime_message(head: HeaderFields) -> Message:
    message = Message()
    for name in ("content-type", "content-disposition"):
        value = head.first(name)
        if value:
            message[name] = clean_text(value, 2_000)
    return message


def _split_multipart(
    raw: bytes, start: int, end: int, message: Message, walk: _Walk
) -> list[tuple[int, int]]:
    """The child spans between boundary lines; preamble and epilogue are dropped."""
    boundary = message.get_boundary()
    if not boundary or len(boundary) > MAX_BOUNDARY_CHARS:
        walk.problems.add("a multipart section has no usable boundary")
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
                walk.cuts.add(f"it has more than {MAX_PARTS} parts")
                return spans
        if found.group(1):
            return spans
        newline = raw.find(b"\n", found.end(), end)
        part_start = end if newline == -1 else newline + 1
    if part_start is None:
        walk.problems.add("a multipart section has no parts")
    else:
        walk.problems.add("a multipart section never ends")
        spans.append((part_start, end))
    return spans


def _preferred(raw: bytes, children: list[tuple[int, int]]) -> tuple[int, int]:
    """In multipart/alternative: plain text first, else HTML, else the last (richest) one."""
    types = [
        _mime_message(read_header_fields(raw, s, e, _MIME_FIELDS, set())).get_content_type()
        for s, e in children
    ]
    for wanted in ("text/plain", "text/html"):
        if wanted in types:
            return children[types.index(wanted)]
    return children[-1]


def _decode_part(data: bytes, encoding: str, charset: str, problems: set[str]) -> str:
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
    except _DECODE_ERRORS:
        problems.add("a part uses an unknown character set")
        return data.decode("utf-8", "replace")


def _charset(message: Message) -> str:
    try:
        charset = message.get_content_charset("utf-8")
    except _DECODE_ERRORS:
        charset = "utf-8"
    return charset or "utf-8"


def _filename(message: Message) -> str | None:
    try:
        name = message.get_filename()
    except _DECODE_ERRORS:
        return "unreadable name"
    return None if name is None else str(name)


def _safe_filename(name: str) -> str:
    visible, _ = strip_invisible(decode_text(name))
    # Every format character (bidi overrides, zero-width, tags) goes, whatever the renderer knows.
    kept = "".join(char for char in visible if unicodedata.category(char) != "Cf")
    return kept.strip()[:MAX_FILENAME_CHARS]


def _encoded_size(raw: bytes, start: int, end: int, encoding: str) -> int:
    if encoding != "base64":
        return max(0, end - start)
    spaces = sum(raw.count(char, start, end) for char in (b"\r", b"\n", b" ", b"\t", b"="))
    return max(0, end - start - spaces) * 3 // 4


def _sentence(opening: str, reasons: set[str]) -> str:
    return f"{opening}: {'; '.join(sorted(reasons))}."
