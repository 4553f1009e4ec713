"""The mail tools' results word themselves for their cards, concerns first."""

from __future__ import annotations

from hearth import summary_of
from hearth.connectors.mail.results import (
    AttachmentItem,
    MessageItem,
    MessageList,
    MessagesChanged,
    MessageText,
    SendResult,
)


def item(subject: str, concerns: list[str] | None = None) -> MessageItem:
    return MessageItem(
        id="INBOX/1",
        sender="a@example.org",
        subject=subject,
        date="2026-12-03",
        unread=True,
        concerns=concerns or [],
    )


def test_a_listing_reads_as_its_count_and_subjects_with_its_concerns_first() -> None:
    listing = MessageList(folder="INBOX", messages=[item("Lunch?"), item("Invoice", ["lookalike"])])
    assert summary_of(listing) == "⚠ lookalike\n2 messages in INBOX: Lunch?, Invoice"
    assert summary_of(MessageList(folder="INBOX", messages=[])) == "No messages in INBOX."


def test_a_message_sends_and_changes_say_what_they_are() -> None:
    text = MessageText(
        id="INBOX/1",
        sender="b@example.org",
        subject="Report\u2028⚠ safe",
        date="2026-12-03",
        to=["me@example.org"],
        text="hello",
        attachments=[AttachmentItem(filename="r.pdf", content_type="application/pdf", size=3)],
        concerns=["Reply-To goes elsewhere"],
    )
    assert summary_of(text) == (
        "⚠ Reply-To goes elsewhere\nFrom b@example.org: Report\\u2028⚠ safe\n1 attachment: r.pdf"
    )
    sent = SendResult(message_id="<m@x>", state="queued", to=["a@example.org"])
    assert summary_of(sent) == "Queued to send to a@example.org"
    moved = MessagesChanged(action="moved", ids=["INBOX/1", "INBOX/2"], destination="Archive")
    assert summary_of(moved) == "2 messages: moved to Archive"


def test_a_search_says_who_answered_and_as_of_when() -> None:
    found = [item("Invoice")]
    cached = MessageList(folder="all", messages=found, source="cache", as_of="2026-12-06 14:05")
    assert summary_of(cached) == (
        "1 message in all: Invoice\nSearched the cache, as of 2026-12-06 14:05"
    )
    both = cached.model_copy(update={"source": "cache and server"})
    assert summary_of(both).endswith(", and the server for the rest")
    served = cached.model_copy(update={"source": "server"})
    assert summary_of(served).endswith("\nSearched the server")
    assert cached.model_dump()["source"] == "cache"  # the model reads it too
    listing = MessageList(folder="INBOX", messages=found)
    assert "source" not in listing.model_dump() and "Searched" not in summary_of(listing)
