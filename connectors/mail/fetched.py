"""Turning what IMAP FETCH answered (ENVELOPE, FLAGS, sizes) into the connector's `Envelope`,
and into the headers a search compares (`SearchHeaders`).

Headers arrive raw: subjects and names may be RFC 2047 encoded, or 8-bit, or broken. Decoding
is tolerant, because one odd message must never stop a folder from syncing.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.header import decode_header, make_header
from typing import Any

from imapclient.response_types import Address as ImapAddress

from hearth.connectors.mail.objects import Address, Envelope
from hearth.connectors.mail.search_text import SearchHeaders, fold

#: What `Mailbox.envelopes` asks for; REFERENCES is not part of the IMAP ENVELOPE.
ENVELOPE_FETCH = [
    "ENVELOPE",
    "FLAGS",
    "RFC822.SIZE",
    "INTERNALDATE",
    "BODY.PEEK[HEADER.FIELDS (REFERENCES)]",
]
_FOLDING = re.compile(r"\r?\n[ \t]*")
_ATEXT = frozenset(string.ascii_letters + string.digits + "!#$%&'*+-/=?^_`{|}~")
_ESCAPED = re.compile(r"[\"\\']")


def decode_text(raw: bytes | str | None) -> str:
    """A header value as text: RFC 2047 words decoded, 8-bit taken as UTF-8, never raising."""
    if raw is None:
        return ""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    text = _FOLDING.sub(" ", text)
    if "=?" not in text:
        return text
    try:
        return str(make_header(decode_header(text)))
    except (ValueError, LookupError, UnicodeError, AssertionError):
        return text


def addresses(raw: Sequence[ImapAddress] | None) -> tuple[Address, ...]:
    """The mailboxes of an ENVELOPE address list; group markers (no host) are skipped."""
    found = []
    for item in raw or ():
        if item.mailbox is None or item.host is None:
            continue
        mailbox = decode_text(item.mailbox)
        host = decode_text(item.host)
        found.append(Address(decode_text(item.name), f"{mailbox}@{host}"))
    return tuple(found)


def envelope(folder: str, uid: int, data: Mapping[bytes, Any]) -> Envelope:
    """One message's FETCH response as an `Envelope`."""
    imap_envelope = data.get(b"ENVELOPE")
    senders = addresses(imap_envelope.from_ if imap_envelope else None)
    reply_to = addresses(imap_envelope.reply_to if imap_envelope else None)
    if reply_to == senders:
        # Servers copy From into Reply-To when the header is absent (RFC 3501 7.4.2).
        reply_to = ()
    when: datetime | None = imap_envelope.date if imap_envelope else None
    internal = data.get(b"INTERNALDATE")
    return Envelope(
        folder=folder,
        uid=uid,
        message_id=decode_text(imap_envelope.message_id if imap_envelope else None).strip(),
        subject=decode_text(imap_envelope.subject if imap_envelope else None),
        sender=senders[0] if senders else None,
        reply_to=reply_to,
        to=addresses(imap_envelope.to if imap_envelope else None),
        cc=addresses(imap_envelope.cc if imap_envelope else None),
        date=when or (internal if isinstance(internal, datetime) else None),
        flags=flags(data.get(b"FLAGS", ())),
        size=int(data.get(b"RFC822.SIZE") or 0),
        in_reply_to=decode_text(imap_envelope.in_reply_to if imap_envelope else None).strip(),
        references=_references(data),
    )


def search_headers(data: Mapping[bytes, Any]) -> SearchHeaders | None:
    """The headers as SEARCH FROM, TO, CC and SUBJECT read them, or None if the server gave no
    ENVELOPE or INTERNALDATE."""
    imap_envelope, internal = data.get(b"ENVELOPE"), data.get(b"INTERNALDATE")
    if imap_envelope is None or not isinstance(internal, datetime):
        return None
    to, cc = (_address_text(part) for part in (imap_envelope.to, imap_envelope.cc))
    return SearchHeaders(
        sender=fold(_address_text(imap_envelope.from_)),
        recipients=fold(f"{to}\n{cc}"),
        subject=fold(decode_text(imap_envelope.subject)),
        received_day=internal.date().isoformat(),
    )


def _address_text(raw: Sequence[ImapAddress] | None) -> str:
    """An address list as Dovecot writes it to search: `Name <box@host>`, `group: …;`."""
    text, first, in_group = "", True, False
    for item in raw or ():
        text += "" if first else ", "
        first = False
        if item.host is None:  # a group opens (its name as mailbox) or closes (all NIL)
            if not in_group:
                text += (_written(item.mailbox) or '""') + ": "
                first = True
            else:
                text = text[:-2] if text.endswith(", ") else text[:-1]
                text += ";"
            in_group = not in_group
            continue
        name = _written(item.name)
        route = f"{decode_text(item.route)}:" if item.route else ""
        text += f"{name} " if name else ""
        text += f"<{route}{_written(item.mailbox, dots=True)}@{decode_text(item.host)}>"
    return text


def _written(raw: bytes | None, *, dots: bool = False) -> str:
    """A name (or with `dots`, a mailbox) as Dovecot writes it: quoted when it holds more than
    atext, with every quote, backslash and apostrophe escaped; encoded words decoded."""
    if not raw or b"=?" in raw:
        return decode_text(raw)
    text = decode_text(raw)
    if all(char in _ATEXT or char >= "\x80" or (dots and char == ".") for char in text):
        return text
    return '"' + _ESCAPED.sub(r"\\\g<0>", text) + '"'


def flags(raw: Sequence[bytes | str]) -> tuple[str, ...]:
    """The message's flags as text; \\Recent is left out (it belongs to one session only)."""
    decoded = (flag.decode("utf-8", "replace") if isinstance(flag, bytes) else flag for flag in raw)
    return tuple(flag for flag in decoded if flag.lower() != "\\recent")


def _references(data: Mapping[bytes, Any]) -> str:
    for key, value in data.items():
        if key.startswith(b"BODY[HEADER.FIELDS") and isinstance(value, bytes):
            header = decode_text(value).strip()
            name, _, rest = header.partition(":")
            return " ".join(rest.split()) if name.strip().lower() == "references" else ""
    return ""
