"""What the mail tools return: typed results whose JSON the model reads.

A message is named by `id`, "<folder>/<uid>" (e.g. "INBOX/42"), which every tool that acts on
a message takes back. Concerns (a lookalike sender, a Reply-To elsewhere, hidden text removed)
travel with the message so the model and the user both see them: a card's `summary` puts them
first, as warning lines. Every outside string in a summary is escaped as `hearth.shown` does it.
"""

from __future__ import annotations

from typing import Literal

import pydantic

from hearth import ToolResult, list_summary, shown

_SEND_WORDS = {
    "sent": "Sent",
    "filed": "Sent and filed",
    "queued": "Queued to send",
    "unknown": "Not known whether it was sent",
}
WARNINGS_SHOWN = 2


class Result(ToolResult):
    """Base of the mail results: frozen, and optional fields omitted while empty."""

    omitted_when_empty = frozenset(
        {"note", "concerns", "reply_to", "cc", "bcc", "attachments", "flags", "source", "as_of"}
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

    def summary(self) -> str:
        return self.subject or f"(no subject, from {self.sender})"


class MessageList(Result):
    """Messages of a listing or a search; a search says who answered (`source`: cache,
    server, or cache and server) and as of when (`as_of`, the cache's last sync)."""

    folder: str
    messages: list[MessageItem]
    note: str | None = None
    source: Literal["cache", "server", "cache and server"] | None = None
    as_of: str | None = None

    def summary(self) -> str:
        folder = shown(self.folder)
        names = [message.summary() for message in self.messages]
        listed = list_summary(names, f"message in {folder}", f"messages in {folder}")
        concerns = [concern for message in self.messages for concern in message.concerns]
        return "\n".join([*_warnings(concerns), listed, *self._answered()])

    def _answered(self) -> list[str]:
        if self.source is None:
            return []
        when = f", as of {shown(self.as_of)}" if self.as_of and self.source != "server" else ""
        if self.source == "cache and server":
            return [f"Searched the cache{when}, and the server for the rest"]
        return [f"Searched the {self.source}{when}"]


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

    def summary(self) -> str:
        said = f"From {shown(self.sender)}: {shown(self.subject) or '(no subject)'}"
        files = [item.filename for item in self.attachments]
        attached = [list_summary(files, "attachment", "attachments")] if files else []
        return "\n".join([*_warnings(self.concerns), said, *attached])


class SendResult(Result):
    """A send or reply: its Message-ID, and `state` sent, filed, queued or unknown."""

    message_id: str
    state: str
    to: list[str]
    note: str | None = None

    def summary(self) -> str:
        verb = _SEND_WORDS.get(self.state, self.state.capitalize())
        return f"{shown(verb)} to {shown(', '.join(self.to))}"


class DraftSaved(Result):
    folder: str
    message_id: str
    note: str | None = None

    def summary(self) -> str:
        return f"Draft saved in {shown(self.folder)}"


class MessagesChanged(Result):
    """Messages moved, trashed or flagged: where they were, and where they are now."""

    action: str
    ids: list[str]
    destination: str = ""
    new_ids: list[str] = pydantic.Field(default_factory=list)
    note: str | None = None

    def summary(self) -> str:
        count = f"{len(self.ids)} message{'s' * (len(self.ids) != 1)}"
        where = f" to {shown(self.destination)}" if self.destination else ""
        return f"{count}: {shown(self.action)}{where}"


def _warnings(concerns: list[str]) -> list[str]:
    """What the user should know about what was read (a lookalike sender), as warning lines."""
    lines = [f"⚠ {shown(concern)}" for concern in dict.fromkeys(concerns)]
    if len(lines) > WARNINGS_SHOWN:
        lines = [
            *lines[: WARNINGS_SHOWN - 1],
            f"{lines[WARNINGS_SHOWN - 1]} (+{len(lines) - WARNINGS_SHOWN} more)",
        ]
    return lines
