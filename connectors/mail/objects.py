"""The mail connector's values: addresses, attachments, concerns, envelopes, read messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from email.utils import formataddr
from typing import Literal

ConcernKind = Literal[
    "reply_to_differs",
    "name_has_address",
    "lookalike_sender",
    "hidden_text",
    "malformed",
    "truncated",
]


@dataclass(frozen=True)
class Address:
    """One mailbox: the display name as written, and the address mail really goes to."""

    name: str
    email: str

    @property
    def domain(self) -> str:
        return self.email.rpartition("@")[2].lower()

    def __str__(self) -> str:
        return formataddr((self.name, self.email)) if self.name else self.email


@dataclass(frozen=True)
class Attachment:
    """An attachment as listed (never opened): its name made safe to show, type and size."""

    filename: str
    content_type: str
    size: int


@dataclass(frozen=True)
class Concern:
    """Something about a message its reader should know: a lookalike sender, hidden text."""

    kind: ConcernKind
    text: str


@dataclass(frozen=True)
class Envelope:
    """A message's headers as the cache keeps them; `uid` is unique within folder+uidvalidity."""

    folder: str
    uid: int
    message_id: str
    subject: str
    sender: Address | None
    reply_to: tuple[Address, ...] = ()
    to: tuple[Address, ...] = ()
    cc: tuple[Address, ...] = ()
    date: datetime | None = None
    flags: tuple[str, ...] = ()
    size: int = 0
    in_reply_to: str = ""
    references: str = ""

    @property
    def unread(self) -> bool:
        return "\\Seen" not in self.flags


@dataclass(frozen=True)
class ParsedBody:
    """A message body made safe to read: text, attachments listed, what was hidden or cut."""

    text: str
    attachments: tuple[Attachment, ...] = ()
    concerns: tuple[Concern, ...] = ()
    hidden_chars: int = 0


@dataclass(frozen=True)
class ReadMessage:
    """One message as `mail.read` gives it."""

    envelope: Envelope
    body: ParsedBody
    concerns: tuple[Concern, ...] = field(default=())
