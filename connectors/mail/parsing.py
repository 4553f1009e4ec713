"""Untrusted message bytes made into safe values: bounded MIME walking and strict headers.

Nothing here raises. Parts are byte spans of one buffer (`mime_parts`), walked iteratively
under caps and a cooperative deadline. Attachments are listed, never decoded.
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import Message

from hearth.connectors.mail.addresses import (
    clean_text,
    decode_text,
    header_addresses,
    header_date,
    read_header_fields,
)
from hearth.connectors.mail.concerns import hidden_concern
from hearth.connectors.mail.mime_parts import (
    DECODE_ERRORS,
    MAX_DEPTH,
    MAX_PARTS,
    MIME_FIELDS,
    decode_part,
    mime_message,
    part_charset,
    part_head,
    split_multipart,
)
from hearth.connectors.mail.objects import Attachment, Concern, Envelope, ParsedBody
from hearth.connectors.mail.rendering import render_html, strip_invisible

MAX_RAW_BYTES = 2_000_000
MAX_TEXT_CHARS = 100_000
MAX_FILENAME_CHARS = 200

_ENVELOPE_FIELDS = frozenset(
    {"from", "reply-to", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"}
)


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
    head, message = part_head(raw, start, end, walk.problems)
    content_type = message.get_content_type()
    filename = _filename(message)
    if content_type.startswith("multipart/") and filename is None:
        if depth >= MAX_DEPTH:
            walk.problems.add("parts are nested too deeply, the deepest were not read")
            return []
        children = split_multipart(raw, head.body_start, end, message, walk.problems, walk.cuts)
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
    charset = part_charset(message)
    text = decode_part(raw[head.body_start : end], encoding, charset, walk.problems)
    if content_type == "text/html":
        rendered = render_html(text)
        walk.hidden_chars += rendered.hidden_chars
        walk.add_text(rendered.text)
    else:
        visible, hidden = strip_invisible(text)
        walk.hidden_chars += hidden
        walk.add_text(visible)
    return []


def _preferred(raw: bytes, children: list[tuple[int, int]]) -> tuple[int, int]:
    """In multipart/alternative: plain text first, else HTML, else the last (richest) one."""
    types = [
        mime_message(read_header_fields(raw, s, e, MIME_FIELDS, set())).get_content_type()
        for s, e in children
    ]
    for wanted in ("text/plain", "text/html"):
        if wanted in types:
            return children[types.index(wanted)]
    return children[-1]


def _filename(message: Message) -> str | None:
    try:
        name = message.get_filename()
    except DECODE_ERRORS:
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
