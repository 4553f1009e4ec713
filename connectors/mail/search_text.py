"""Text as IMAP SEARCH compares it, made here the way Dovecot makes it, for the cache to index.

Dovecot compares a key and a text after folding both the same way: each character to its
simple titlecase, then decomposed one level (canonical or compatibility; a Hangul syllable into
its jamo; none for a titlecase letter). So "cafe" is found in "Café" (the accent becomes a mark
of its own after the E) but "muller" is not in "Müller", and "ß" is not "ss". Checked against
Dovecot's own answers to the same keys (tests/connectors/mail/test_search_differential.py).

BODY searches the text of every text/* and message/* part, transfer encoding and character set
undone, in every alternative, HTML as written (tags and entities too), attachments included;
never the headers of the message or of its parts, nor preambles and epilogues. The walk over
parts is bounded (`mime_parts`). A message it cannot read to the end, or whose structure is
broken anywhere (a Content-Type without subtype, a boundary missing, a header line without a
colon), has no body text here: servers read broken MIME each their own way, so the server is
asked about that message instead.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass

from hearth.connectors.mail.mime_parts import (
    MAX_DEPTH,
    MAX_PARTS,
    decode_part,
    part_charset,
    part_head,
    split_multipart,
)

_HANGUL = range(0xAC00, 0xD7A4)
_TOKEN = r"([!#$%&'*+\-.^_`{|}~0-9A-Za-z]+)"
_TYPE = re.compile(rf"[ \t]*{_TOKEN}[ \t]*/[ \t]*{_TOKEN}[ \t]*(;|$)")
_BASE64 = re.compile(rb"[A-Za-z0-9+/\s]*(=[\s]*){0,2}")
# Dovecot reads these as UTF-8 (8-bit text labelled US-ASCII is still found).
_UTF8_ALIASES = frozenset({"us-ascii", "ascii", "utf8", "unknown-8bit"})


class _Folding(dict[int, str]):
    """What each character folds to, worked out the first time it is met."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        title = char.title()
        # A character whose titlecase is several (ß, ﬁ) has no simple titlecase mapping.
        if len(title) != 1:
            title = char
        folded = _decomposed(title)
        self[code] = folded
        return folded


def _decomposed(char: str) -> str:
    if ord(char) in _HANGUL:
        return unicodedata.normalize("NFD", char)
    if unicodedata.category(char) == "Lt":
        return char  # Dovecot's table keeps titlecase letters (ǅ) whole
    mapping = unicodedata.decomposition(char).split()
    if mapping and mapping[0].startswith("<"):
        mapping = mapping[1:]
    return "".join(chr(int(code, 16)) for code in mapping) if mapping else char


_FOLDING = _Folding()


def fold(text: str) -> str:
    """`text` as Dovecot's search compares it; a key is found in a text when its fold is in
    the text's fold."""
    if text.isascii():
        return text.upper()
    return text.translate(_FOLDING)


def body_text(raw: bytes, *, deadline_s: float = 5.0) -> str | None:
    """The folded text BODY searches in the whole message `raw`; None when it cannot be read
    to the end within the caps, or its structure is broken anywhere (a server may read
    broken MIME its own way, so it answers for that message)."""
    started = time.monotonic()
    problems: set[str] = set()
    texts: list[str] = []
    pending: list[tuple[int, int, int]] = [(0, len(raw), 0)]
    visited = 0
    while pending:
        visited += 1
        if visited > MAX_PARTS or time.monotonic() - started >= deadline_s:
            return None
        start, end, depth = pending.pop()
        head, message = part_head(raw, start, end, problems)
        content_type = _content_type(head.fields.get("content-type", []))
        if content_type is None or content_type == "multipart/digest" or depth >= MAX_DEPTH:
            return None
        maintype = content_type.partition("/")[0]
        if maintype == "multipart":
            children = split_multipart(raw, head.body_start, end, message, problems, problems)
            pending.extend((s, e, depth + 1) for s, e in reversed(children))
        elif content_type == "message/rfc822":
            pending.append((head.body_start, end, depth + 1))  # the attached message
        elif maintype in ("text", "message"):
            charset = part_charset(message)
            if charset.lower() in _UTF8_ALIASES:
                charset = "utf-8"
            encoding = head.first("content-transfer-encoding").strip().lower()
            data = raw[head.body_start : end]
            if encoding == "base64" and not _BASE64.fullmatch(data):
                return None  # decoders part ways on damaged base64
            texts.append(decode_part(data, encoding, charset, problems))
    if problems:
        return None
    # Parts are searched one by one: the line between them keeps a word from spanning two.
    return fold("\n".join(texts))


def _content_type(values: list[str]) -> str | None:
    """type/subtype of a part's Content-Type, lower-cased; text/plain without one; None
    when there are two, or it does not read as type/subtype, or it has RFC 2231 parameters."""
    if not values:
        return "text/plain"
    # RFC 2231 parameters (boundary*=...) are not read by every server.
    found = _TYPE.match(values[0]) if len(values) == 1 and "*=" not in values[0] else None
    return f"{found.group(1)}/{found.group(2)}".lower() if found else None


@dataclass(frozen=True)
class SearchHeaders:
    """A message's folded sender, recipients (To, Cc) and subject, and its INTERNALDATE's day."""

    sender: str
    recipients: str
    subject: str
    received_day: str  # YYYY-MM-DD as the server wrote it, its own zone's day
