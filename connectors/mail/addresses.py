"""Addresses, header fields and header text from untrusted mail: one reading only, or refused.

Python 3.11 lacks the CVE-2023-27043 fix, so `email.utils.parseaddr`/`getaddresses` are never
used: they can return a different address than the one mail would really go to. The modern
header parser reports what it had to guess as defects, and any guess is refused here.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email import errors as email_errors
from email.policy import default as default_policy
from email.utils import parsedate_to_datetime

from hearth.connectors.mail.errors import BadAddress
from hearth.connectors.mail.objects import Address

MAX_ADDRESS_HEADER_CHARS = 8_000
MAX_RECIPIENTS = 100
MAX_TEXT_CHARS = 1_000
MAX_NAME_CHARS = 200
MAX_FIELD_CHARS = 10_000
# The header parser is quadratic in unbalanced quotes; real lists hold two per name.
_MAX_QUOTES = 400

# Defects that change no address: an unquoted "John Q. Public" and an empty ", ," entry.
_HARMLESS_DEFECTS = frozenset({"period in 'phrase'", "address-list entry with no content"})
# An unknown charset in an encoded display name spoils only the name, which is cleaned below.
_NAME_ONLY_DEFECTS = (email_errors.CharsetError, email_errors.UndecodableBytesDefect)

_LOCAL_PART = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_DOMAIN_LABEL = re.compile(r"[^\W_](?:[\w-]*[^\W_])?")
_ENCODED_WORD = re.compile(r"=\?([^?\s]{1,60})\?([bBqQ])\?([^?\s]*)\?=")
_BETWEEN_ENCODED_WORDS = re.compile(r"(?<=\?=)[ \t]+(?==\?)")
_UNFOLD = re.compile(r"(?:\r\n|\r|\n)(?=[ \t])")
_FOLDING = re.compile(r"[ \t]*(?:\r\n|\r|\n)[ \t]*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_FIELD_NAME = re.compile(rb"([\x21-\x39\x3b-\x7e]+)[ \t]*:")


@dataclass
class HeaderFields:
    """Wanted header fields of one header block (first two values each), where its body starts."""

    fields: dict[str, list[str]] = field(default_factory=dict)
    body_start: int = 0

    def first(self, name: str) -> str:
        values = self.fields.get(name)
        return values[0] if values else ""


def parse_address_list(value: str) -> tuple[Address, ...]:
    """Every address in a To/From/Cc-style header, or BadAddress when any part needs a guess."""
    text = _UNFOLD.sub("", value).strip()
    if not text:
        return ()
    shown = _preview(text)
    if len(text) > MAX_ADDRESS_HEADER_CHARS or text.count('"') > _MAX_QUOTES:
        raise BadAddress(f"the address list is too long or complex to read safely: {shown}")
    if any(char in text for char in "\r\n\0"):
        raise BadAddress(f"the address list contains a line break or NUL character: {shown}")
    try:
        header = default_policy.header_factory("To", text)
        found = tuple(header.addresses)
        defects = tuple(header.defects)
    # The stdlib parser crashes on some hostile inputs (IndexError on "a@", RecursionError on
    # nested comments); for mail that is the attacker's doing, so it becomes a refusal.
    except Exception as error:
        raise BadAddress(f"the address list cannot be read: {shown}") from error
    for defect in defects:
        if isinstance(defect, _NAME_ONLY_DEFECTS) or str(defect) in _HARMLESS_DEFECTS:
            continue
        raise BadAddress(f"the address list cannot be read one way only ({defect}): {shown}")
    return tuple(
        _checked(address.display_name, address.username, address.domain, shown) for address in found
    )


def parse_recipients(values: Sequence[str]) -> tuple[Address, ...]:
    """Recipients proposed by the model: one address per item, no duplicates, at most 100."""
    if isinstance(values, str):
        raise BadAddress("recipients must be a list of addresses, one address per item")
    if len(values) > MAX_RECIPIENTS:
        raise BadAddress(f"too many recipients ({len(values)}); at most {MAX_RECIPIENTS}")
    seen: set[str] = set()
    recipients: list[Address] = []
    for number, item in enumerate(values, start=1):
        if not isinstance(item, str):
            raise BadAddress(f"recipient {number} is not text; give addresses like bob@example.org")
        if any(char in item for char in "\r\n\0"):
            raise BadAddress(f"recipient {number} contains a line break or NUL character")
        addresses = parse_address_list(item)
        if len(addresses) != 1:
            raise BadAddress(
                f"recipient {number} ({_preview(item)}) holds {len(addresses)} addresses; "
                "give exactly one address per item"
            )
        key = addresses[0].email.casefold()
        if key not in seen:
            seen.add(key)
            recipients.append(addresses[0])
    return tuple(recipients)


def decode_text(value: str | bytes) -> str:
    """Header text for display: encoded words decoded tolerantly, controls dropped, capped."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    # Encoded words only grow when decoded, so a bounded input bounds the work.
    text = _FOLDING.sub(" ", text[: MAX_TEXT_CHARS * 20])
    text = _BETWEEN_ENCODED_WORDS.sub("", text)
    text = _ENCODED_WORD.sub(_decode_encoded_word, text)
    return clean_text(text, MAX_TEXT_CHARS)


def clean_text(text: str, limit: int) -> str:
    """`text` without control characters (tab kept) or lone surrogates, cut to `limit`."""
    text = _SURROGATE.sub("\ufffd", text)
    kept = "".join(
        " " if char in "\r\n" else char
        for char in text
        if char in "\t\r\n" or unicodedata.category(char) != "Cc"
    )
    return kept.strip()[:limit]


def _decode_encoded_word(match: re.Match[str]) -> str:
    charset, encoding, payload = match.group(1), match.group(2).upper(), match.group(3)
    charset = charset.partition("*")[0]  # RFC 2231 language suffix: "utf-8*en"
    try:
        if encoding == "B":
            data = base64.b64decode(payload + "=" * (-len(payload) % 4))
        else:
            data = binascii.a2b_qp(payload.encode("ascii", "replace"), header=True)
    except (binascii.Error, ValueError):
        return "\ufffd"
    try:
        codecs.lookup(charset)
        return data.decode(charset, "replace")
    except (LookupError, UnicodeError, ValueError, TypeError):
        return data.decode("ascii", "replace")


def _checked(display_name: str, username: str, domain: str, shown: str) -> Address:
    if not username or not domain:
        raise BadAddress(f"an address has no proper name@domain form: {shown}")
    labels = domain.split(".")
    if not all(_DOMAIN_LABEL.fullmatch(label) for label in labels):
        raise BadAddress(f"an address has an unusual domain ({domain!r}): {shown}")
    if _LOCAL_PART.fullmatch(username) is None:
        raise BadAddress(f"an address has an unusual part before the @ ({username!r}): {shown}")
    return Address(name=clean_text(display_name, MAX_NAME_CHARS), email=f"{username}@{domain}")


def _preview(text: str) -> str:
    return repr(text[:80] + ("…" if len(text) > 80 else ""))


def read_header_fields(
    raw: bytes, start: int, end: int, wanted: frozenset[str], problems: set[str]
) -> HeaderFields:
    """Header lines from `start` up to the blank line; only `wanted` names kept, each capped."""
    head = HeaderFields(body_start=end)
    current: list[str] | None = None
    position = start
    while position < end:
        newline = raw.find(b"\n", position, end)
        stop = end if newline == -1 else newline + 1
        first = raw[position : min(stop, position + 2)]
        if first in (b"\n", b"\r\n", b"\r"):
            head.body_start = stop
            return head
        if first[:1] in (b" ", b"\t"):
            if current:
                current[-1] = _appended(current[-1], raw, position, stop)
        else:
            named = _FIELD_NAME.match(raw, position, min(stop, position + 200))
            if named is None:
                problems.add("a part is missing the blank line after its headers")
                head.body_start = position
                return head
            name = named.group(1).decode("ascii").lower()
            current = None
            if name in wanted:
                current = head.fields.setdefault(name, [])
                if len(current) < 2:
                    current.append(_appended("", raw, named.end(), stop))
                else:
                    current = None
        position = stop
    return head


def _appended(value: str, raw: bytes, start: int, stop: int) -> str:
    room = MAX_FIELD_CHARS + 1 - len(value)
    if room <= 0:
        return value
    piece = raw[start : min(stop, start + room * 4)].decode("utf-8", "replace")
    return (value + piece.rstrip("\r\n"))[: MAX_FIELD_CHARS + 1]


def header_addresses(head: HeaderFields, name: str) -> tuple[tuple[Address, ...], str | None]:
    """The addresses in header `name`, or () and why they cannot be read one way only."""
    values = head.fields.get(name, [])
    if len(values) > 1:
        return (), f"the message has more than one {name.title()} header"
    try:
        return parse_address_list(values[0] if values else ""), None
    except BadAddress as error:
        return (), str(error)


def header_date(value: str) -> datetime | None:
    """The Date header's moment, or None when it cannot be read."""
    if not value.strip():
        return None
    try:
        return parsedate_to_datetime(clean_text(value, 200))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
