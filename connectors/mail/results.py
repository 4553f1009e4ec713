"""What the mail tools return: typed results whose JSON the model reads.

A message is named by `id`, "<folder>/<uid>" (e.g. "INBOX/42"), which every tool that acts on
a message takes back. Concerns (a lookalike sender, a Reply-To elsewhere, hidden text removed)
travel with the message so the model and the user both see them.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pydantic


class Result(pydantic.BaseModel):
    """Base of the mail results: frozen, and optional fields omitted while empty."""

    model_config = pydantic.ConfigDict(frozen=True)
    omitted_when_empty: ClassVar[frozenset[str]] = frozenset(
        {"note", "concerns", "reply_to", "cc", "bcc", "attachments", "flags"}
    )

    @pydantic.model_serializer(mode="wrap")
    def _without_empty_notes(self, handler: pydantic.SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {
            key: value
            for key, value in data.items()
            if key not in self.omitted_when_empty or value not in (None, [], "", False)
        }


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
