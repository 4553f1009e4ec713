"""What the mail tools return: typed results whose JSON the model reads.

A message is named by `id`, "<folder>/<uid>" (e.g. "INBOX/42"), which every tool that acts on
a message takes back. Concerns (a lookalike sender, a Reply-To elsewhere, hidden text removed)
travel with the message so the model and the user both see them.
"""

from __future__ import annotations

import pydantic

from hearth import ToolResult


class Result(ToolResult):
    """Base of the mail results: frozen, and optional fields omitted while empty."""

    omitted_when_empty = frozenset(
        {"note", "concerns", "reply_to", "cc", "bcc", "attachments", "flags"}
    )


class MessageItem(Result):
    """One message in a listing: who, what, when, and whether it is unread."""

    id: str
    sender: str
    subject: str
    date: str
    unread: bool
    flags: list[str] = pydantic.Field(default_factory=list)
    concerns: list[str] = pydantic.Field(default_factory=list)


class MessageList(Result):
    folder: str
    messages: list[MessageItem]
    note: str | None = None


class AttachmentItem(Result):
    filename: str
    content_type: str
    size: int


class MessageText(Result):
    """One message as text; attachments are listed, never opened."""

    id: str
    sender: str
    subject: str
    date: str
    to: list[str]
    cc: list[str] = pydantic.Field(default_factory=list)
    reply_to: list[str] = pydantic.Field(default_factory=list)
    text: str
    attachments: list[AttachmentItem] = pydantic.Field(default_factory=list)
    concerns: list[str] = pydantic.Field(default_factory=list)
    note: str | None = None


class SendResult(Result):
    """A send or reply: its Message-ID, and `state` sent, filed, queued or unknown."""

    message_id: str
    state: str
    to: list[str]
    note: str | None = None


class DraftSaved(Result):
    folder: str
    message_id: str
    note: str | None = None


class MessagesChanged(Result):
    """Messages moved, trashed or flagged: where they were, and where they are now."""

    action: str
    ids: list[str]
    destination: str = ""
    new_ids: list[str] = pydantic.Field(default_factory=list)
    note: str | None = None
