"""Writing a message: the draft, the bytes that go to the server, and the preview the user checks.

A header value containing CR, LF or NUL is refused outright, never folded or stripped: such a
value could smuggle in headers (a Bcc the user never saw) and the user must see what is sent.
Bcc recipients travel in the SMTP envelope only, never in the message.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.errors import HeaderParseError
from email.headerregistry import Address as HeaderAddress
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from hearth.connectors.mail.errors import MailError
from hearth.connectors.mail.objects import Address, Envelope

__all__ = [
    "PREVIEW_LIMIT",
    "Draft",
    "build_message",
    "new_message_id",
    "render_preview",
    "reply_draft",
]

PREVIEW_LIMIT = 4000
_INJECTION = re.compile(r"[\r\n\x00]")
_MESSAGE_ID = re.compile(r"<[^<>\s@]+@[^<>\s@]+>")
_REPLY_PREFIX = re.compile(r"\s*re\s*:", re.IGNORECASE)


@dataclass(frozen=True)
class Draft:
    """A message as the user will confirm it; `bcc` goes to the envelope, never the headers."""

    sender: Address
    to: tuple[Address, ...]
    subject: str
    body: str
    cc: tuple[Address, ...] = ()
    bcc: tuple[Address, ...] = ()
    in_reply_to: str = ""
    references: str = ""

    @property
    def recipients(self) -> tuple[str, ...]:
        """Every envelope recipient (To, Cc and Bcc), lower-cased, each once, in order."""
        seen: dict[str, None] = {}
        for address in (*self.to, *self.cc, *self.bcc):
            seen.setdefault(address.email.strip().lower(), None)
        return tuple(seen)


def new_message_id(sender: Address) -> str:
    """A fresh `<random@sender-domain>`, fixed before sending so a copy can be found later."""
    return make_msgid(domain=sender.domain or None)


def build_message(draft: Draft, *, message_id: str, date: datetime | None = None) -> bytes:
    """The RFC 5322 message for `draft`, with the given Message-ID; CRLF line endings."""
    _refuse_injection(draft, message_id)
    if not draft.recipients:
        raise MailError("A message needs at least one recipient (To, Cc or Bcc).")
    if not _MESSAGE_ID.fullmatch(message_id):
        raise ValueError(f"{message_id!r} is not a Message-ID like <random@example.org>")
    message = EmailMessage(policy=policy.SMTP)
    try:
        message["Message-ID"] = message_id
        message["Date"] = format_datetime((date or datetime.now(UTC)).astimezone())
        message["From"] = _header_address(draft.sender)
        if draft.to:
            message["To"] = [_header_address(address) for address in draft.to]
        if draft.cc:
            message["Cc"] = [_header_address(address) for address in draft.cc]
        message["Subject"] = draft.subject
        if draft.in_reply_to:
            message["In-Reply-To"] = draft.in_reply_to
        if draft.references:
            message["References"] = draft.references
    except (ValueError, HeaderParseError) as error:
        raise MailError(f"The message could not be written: {error}") from error
    # 7-bit safe, so no server needs 8BITMIME or SMTPUTF8 for the body.
    cte = "7bit" if draft.body.isascii() else "quoted-printable"
    message.set_content(draft.body, charset="utf-8", cte=cte)
    return message.as_bytes()


def render_preview(draft: Draft, *, warnings: Sequence[str] = ()) -> str:
    """The message as the consent card shows it: every real address visible, then the body."""
    lines = [f"From: {_shown(draft.sender)}", f"To: {_shown_list(draft.to)}"]
    if draft.cc:
        lines.append(f"Cc: {_shown_list(draft.cc)}")
    if draft.bcc:
        lines.append(f"Bcc: {_shown_list(draft.bcc)}")
    lines.append(f"Subject: {_visible(draft.subject)}")
    lines.extend(f"⚠ {warning}" for warning in warnings)
    body = draft.body
    if len(body) > PREVIEW_LIMIT:
        body = f"{body[:PREVIEW_LIMIT]}… ({len(body) - PREVIEW_LIMIT} more characters)"
    return "\n".join([*lines, "", body])


def reply_draft(
    original: Envelope,
    *,
    sender: Address,
    body: str,
    reply_all: bool = False,
    own_addresses: Iterable[str] = (),
) -> Draft:
    """A reply to `original`: to its Reply-To (else From), threaded by In-Reply-To/References."""
    target = original.reply_to or ((original.sender,) if original.sender else ())
    if not target:
        raise MailError("That message names no sender, so there is no one to reply to.")
    own = {sender.email.lower(), *(address.lower() for address in own_addresses)}
    taken = set(own)
    to = _fresh(target, taken)
    cc: tuple[Address, ...] = ()
    if reply_all:
        to += _fresh(original.to, taken)
        cc = _fresh(original.cc, taken)
    if not to and not cc:
        raise MailError("Every recipient of that message is you, so there is no one to reply to.")
    subject = original.subject
    if not _REPLY_PREFIX.match(subject):
        subject = f"Re: {subject}"
    earlier = original.references or (
        original.in_reply_to if _MESSAGE_ID.fullmatch(original.in_reply_to) else ""
    )
    references = " ".join(part for part in (earlier, original.message_id) if part)
    return Draft(
        sender=sender,
        to=to,
        subject=subject,
        body=body,
        cc=cc,
        in_reply_to=original.message_id,
        references=references,
    )


def _fresh(addresses: Iterable[Address], taken: set[str]) -> tuple[Address, ...]:
    """The addresses not in `taken` (case-insensitive), each once; records them in `taken`."""
    fresh = []
    for address in addresses:
        key = address.email.lower()
        if key not in taken:
            taken.add(key)
            fresh.append(address)
    return tuple(fresh)


def _refuse_injection(draft: Draft, message_id: str) -> None:
    fields = {
        "Subject": draft.subject,
        "Message-ID": message_id,
        "In-Reply-To": draft.in_reply_to,
        "References": draft.references,
    }
    for label, addresses in (
        ("From", (draft.sender,)),
        ("To", draft.to),
        ("Cc", draft.cc),
        ("Bcc", draft.bcc),
    ):
        for address in addresses:
            if _INJECTION.search(address.name) or _INJECTION.search(address.email):
                raise MailError(
                    f"The {label} address {address.email!r} contains a line break or NUL; "
                    "refused, since it could add hidden headers."
                )
    for label, value in fields.items():
        if _INJECTION.search(value):
            raise MailError(
                f"The {label} contains a line break or NUL; refused, since it could add "
                "hidden headers. Write it on one line."
            )


def _header_address(address: Address) -> HeaderAddress:
    return HeaderAddress(display_name=address.name, addr_spec=address.email)


def _shown_list(addresses: Iterable[Address]) -> str:
    return ", ".join(_shown(address) for address in addresses)


def _shown(address: Address) -> str:
    """`Name <addr>`; a name that looks like an address is quoted so the real one stands out."""
    email = _visible(address.email)
    name = _visible(address.name.strip())
    if not name:
        return email
    if any(mark in name for mark in '<>@",'):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{name} <{email}>"


def _visible(text: str) -> str:
    """Control and format characters (line breaks, bidi overrides) written out, not obeyed."""
    return "".join(
        f"\\u{{{ord(char):04x}}}" if unicodedata.category(char) in ("Cc", "Cf") else char
        for char in text
    )
