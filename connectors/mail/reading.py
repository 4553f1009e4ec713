"""The mail tools that only look: list, search and read. Nothing is ever marked read.

Listings come from the cache after a quick sync of the folder, so they work offline too.
Searches are answered by the cache where a sync covered the folder, by the server for the
rest (`searching`). A message body is fetched with BODY.PEEK, parsed under size and time
limits, rendered to text without what its sender hid, and cached. Its text reaches the model
fenced as untrusted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime

from hearth import tool
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.concerns import sender_concerns
from hearth.connectors.mail.errors import MailError, Offline
from hearth.connectors.mail.fetching import fetch
from hearth.connectors.mail.ids import message_id, parse_message_id, parse_since
from hearth.connectors.mail.objects import Envelope
from hearth.connectors.mail.results import AttachmentItem, MessageItem, MessageList, MessageText
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.searching import search_mail

LIST_LIMIT = 50


class ReadingTools:
    """The mail connector's tools that only look."""

    account: MailAccount

    @tool(effect="read", name="mail.list", keywords=("inbox", "unread", "new"))
    def list_messages(
        self,
        folder: str = "INBOX",
        unread: bool = False,
        since: str | None = None,
        sender: str | None = None,
        limit: int = 20,
        page: int = 1,
    ) -> MessageList:
        """List messages in a folder, newest first.

        Args:
            folder: The folder, e.g. INBOX, Sent or Archive.
            unread: Only unread messages.
            since: Only messages from this day on: YYYY-MM-DD, today, yesterday or '3 days'.
            sender: Only messages whose sender's name or address contains this.
            limit: At most this many (up to 50).
            page: Which page of a long result to read (1 is the first).
        """
        day = parse_since(since, date.today())
        note = self._refresh(folder)
        found = self.account.cache.envelopes(
            folder, unread=unread, since=day, sender=sender, limit=_limit(limit)
        )
        return MessageList(folder=folder, messages=self._items(found), note=note).paged(page)

    @tool(effect="read", name="mail.search", keywords=("find", "search", "about"))
    def search(
        self,
        words: str,
        folder: str | None = None,
        sender: str | None = None,
        since: str | None = None,
        limit: int = 20,
        page: int = 1,
    ) -> MessageList:
        """Find messages whose sender, recipients, subject or text contain all the words.

        Args:
            words: Words to look for, e.g. invoice march.
            folder: Only this folder; without it, every folder.
            sender: Only messages whose sender contains this.
            since: Only messages received from this day on: YYYY-MM-DD, today or '3 days'.
            limit: At most this many (up to 50).
            page: Which page of a long result to read (1 is the first).
        """
        query = MailQuery.of(words, sender, parse_since(since, date.today()))
        cache = self.account.cache
        folders = [folder] if folder else sorted({*cache.folders(), "INBOX"})
        fresh_s = self.account.public_settings().sync_minutes * 60
        found = search_mail(self.account, query, folders, limit=_limit(limit), fresh_s=fresh_s)
        return MessageList(
            folder=folder or "all",
            messages=self._items(found.envelopes),
            note=found.note,
            source=found.source,
            as_of=_moment(found.as_of),
        ).paged(page)

    @tool(effect="read", name="mail.read", keywords=("read", "open", "show", "says"))
    def read(self, message: str) -> MessageText:
        """Read one message as plain text; attachments are listed, never opened.

        Args:
            message: The message's id from mail.list or mail.search, e.g. INBOX/42.
        """
        folder, uid = parse_message_id(message)
        envelope, body = fetch(self.account, folder, uid)
        concerns = [
            *(
                c.text
                for c in sender_concerns(
                    envelope.sender, envelope.reply_to, self.account.known_contacts()
                )
            ),
            *(c.text for c in body.concerns),
        ]
        return MessageText(
            id=message_id(folder, uid),
            sender=str(envelope.sender) if envelope.sender else "(unreadable sender)",
            subject=envelope.subject,
            date=envelope.date.isoformat(timespec="minutes") if envelope.date else "",
            to=[str(a) for a in envelope.to],
            cc=[str(a) for a in envelope.cc],
            reply_to=[str(a) for a in envelope.reply_to],
            text=body.text,
            attachments=[
                AttachmentItem(filename=a.filename, content_type=a.content_type, size=a.size)
                for a in body.attachments
            ],
            concerns=list(dict.fromkeys(concerns)),
        )

    def _refresh(self, folder: str) -> str | None:
        try:
            # Bodies wait for the background sync: a listing needs only the headers.
            self.account.sync([folder], bodies=False)
        except Offline as offline:
            return f"Offline: listed from the cache. {offline}"
        return None

    def _items(self, envelopes: Iterable[Envelope]) -> list[MessageItem]:
        known = self.account.known_contacts()
        return [
            MessageItem(
                id=message_id(e.folder, e.uid),
                sender=str(e.sender) if e.sender else "(unreadable sender)",
                subject=e.subject,
                date=e.date.isoformat(timespec="minutes") if e.date else "",
                unread=e.unread,
                flags=[f for f in e.flags if f not in ("\\Seen", "\\Recent")],
                concerns=[c.text for c in sender_concerns(e.sender, e.reply_to, known)],
            )
            for e in envelopes
        ]


def _limit(limit: int) -> int:
    if limit < 1:
        raise MailError("limit must be at least 1")
    return min(limit, LIST_LIMIT)


def _moment(seconds: float | None) -> str | None:
    """A time as the model and the card read it: local, to the minute."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds).isoformat(sep=" ", timespec="minutes")
