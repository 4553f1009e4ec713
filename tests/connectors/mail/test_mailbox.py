"""Mailbox operations against a real Dovecot, with another client on the same mailbox."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

import pytest

from hearth.connectors.evaluation.servers.dovecot import DovecotServer, message
from hearth.connectors.mail.errors import FolderNotFound, MessageNotFound
from hearth.connectors.mail.imap import open_imap
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.search_query import MailQuery
from tests.connectors.mail.test_imap import settings_for


@pytest.fixture
def mailbox(dovecot: DovecotServer) -> Iterator[Mailbox]:
    with Mailbox(open_imap(settings_for(dovecot), dovecot.password)) as opened:
        yield opened


def test_folders_and_their_special_uses(mailbox: Mailbox) -> None:
    uses = {folder.name: folder.special_use for folder in mailbox.folders()}
    assert uses == {
        "INBOX": None,
        "Sent": "\\Sent",
        "Drafts": "\\Drafts",
        "Trash": "\\Trash",
        "Archive": "\\Archive",
        "Junk": "\\Junk",
    }
    assert mailbox.special("\\Trash") == "Trash"
    assert mailbox.special("\\Sent") == "Sent"
    assert mailbox.special("\\All") is None


def test_examine_and_envelopes(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    raw = message(
        "=?utf-8?q?Gr=C3=BC=C3=9Fe?= from Bob",
        sender="=?utf-8?q?B=C3=B6b?= <bob@example.com>",
        to="Ann <ann@example.org>, Team: carl@example.net, dee@example.net;",
        Cc="eve@example.net",
        In_Reply_To="<parent@example.com>",
        References="<root@example.com> <parent@example.com>",
    )
    first = dovecot.append("INBOX", raw, ["\\Seen"])
    second = dovecot.append("INBOX", message("Plain", Reply_To="other@example.org"))
    state = mailbox.examine("INBOX")
    assert (state.exists, state.uidnext) == (2, second + 1)
    assert state.uidvalidity == dovecot.uidvalidity("INBOX")

    one, two = mailbox.envelopes("INBOX", [second, first, 999], batch=1)
    assert (one.folder, one.uid) == ("INBOX", first)
    assert one.subject == "Grüße from Bob"
    assert one.sender is not None and (one.sender.name, one.sender.email) == (
        "Böb",
        "bob@example.com",
    )
    assert [a.email for a in one.to] == ["ann@example.org", "carl@example.net", "dee@example.net"]
    assert [a.email for a in one.cc] == ["eve@example.net"]
    assert one.reply_to == ()
    assert one.flags == ("\\Seen",) and not one.unread
    assert one.in_reply_to == "<parent@example.com>"
    assert one.references == "<root@example.com> <parent@example.com>"
    assert one.message_id.startswith("<") and one.size == len(raw)
    assert one.date is not None and one.date.tzinfo is not None
    assert [a.email for a in two.reply_to] == ["other@example.org"] and two.unread


def test_reading_raw_never_marks_read(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    uid = dovecot.append("INBOX", message("Secret", body="x" * 5000))
    head = mailbox.raw("INBOX", uid, 300)
    assert len(head) == 300 and b"Subject: Secret" in head
    assert len(mailbox.raw("INBOX", uid, 1_000_000)) == len(dovecot.fetch_raw("INBOX", uid))
    assert "\\Seen" not in dovecot.flags("INBOX", uid)
    with pytest.raises(MessageNotFound):
        mailbox.raw("INBOX", uid + 1, 100)


def test_search(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    pie = dovecot.append("INBOX", message("Apple pie recipe", body="cinnamon"), ["\\Seen"])
    bill = dovecot.append("INBOX", message("Invoice", sender="Carol <carol@shop.example>"))
    umlaut = dovecot.append("INBOX", message("Grüße", body="Käsekuchen"))

    def search(**asked: object) -> list[int]:
        return mailbox.search("INBOX", MailQuery.of(**asked))  # type: ignore[arg-type]

    assert search(words="apple cinnamon") == [pie]
    assert search(sender="carol@shop") == [bill]
    assert search(unread=True) == [bill, umlaut]
    assert search(words="Käsekuchen") == [umlaut]
    assert search(since=date.today() - timedelta(days=1)) == [pie, bill, umlaut]
    assert search(since=date.today() + timedelta(days=2)) == []
    assert search() == [pie, bill, umlaut]
    # IMAP syntax in the user's words stays words: no injected criteria, no broken command.
    for hostile in ['zq" OR ALL "', "zq) OR (ALL", "zq {5}", "zq\r\nA1 DELETE INBOX", "*"]:
        assert search(words=hostile) == []
    assert search(words="pie") == [pie]  # the connection is still in step
    assert mailbox.search("INBOX", MailQuery.of("e"), uids=f"{bill}:*") == [bill, umlaut]
    assert dovecot.uids("INBOX") == [pie, bill, umlaut]
    assert "INBOX" in [folder.name for folder in mailbox.folders()]


def test_words_are_looked_for_in_people_subject_and_body_only(
    dovecot: DovecotServer, mailbox: Mailbox
) -> None:
    raw = message(
        "Quarterly figures",
        body="See the spreadsheet.",
        sender="Dora Dahl <dora@north.example>",
        to="Team <team@south.example>",
        Cc="Eli <eli@west.example>",
        Message_ID="<zebra@east.example>",
        X_Note="walrus",
    )
    uid = dovecot.append("INBOX", raw)
    for word in ("dahl", "north", "south", "west", "terly", "spreadsheet"):
        assert mailbox.search("INBOX", MailQuery.of(word)) == [uid], word
    for word in ("zebra", "east", "walrus"):  # other headers are not searched
        assert mailbox.search("INBOX", MailQuery.of(word)) == [], word
    assert mailbox.search("INBOX", MailQuery.of(sender="south")) == []


def test_find_message_id(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    uid = dovecot.append("INBOX", message("A", Message_ID="<abc.123@example.com>"))
    dovecot.append("INBOX", message("B", Message_ID="<abc.1234@example.com>"))
    assert mailbox.find_message_id("INBOX", "<abc.123@example.com>") == [uid]
    assert mailbox.find_message_id("INBOX", "<nope@example.com>") == []


def test_unknown_folder_names_the_folders(mailbox: Mailbox) -> None:
    with pytest.raises(FolderNotFound) as missing:
        mailbox.examine("Receipts")
    assert "Receipts" in str(missing.value) and "Archive" in str(missing.value)
    with pytest.raises(FolderNotFound):
        mailbox.append("Receipts", message("x"))


def test_append_returns_the_uid_and_sets_flags(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    uid = mailbox.append("Drafts", message("Draft"), ["\\Draft", "\\Seen"])
    assert uid == dovecot.uids("Drafts")[-1]
    assert set(dovecot.flags("Drafts", uid)) == {"\\Draft", "\\Seen"}


def test_set_flags(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    uid = dovecot.append("INBOX", message("Flag me"))
    mailbox.set_flags("INBOX", [uid], add=["\\Seen", "\\Flagged"])
    assert set(dovecot.flags("INBOX", uid)) == {"\\Seen", "\\Flagged"}
    mailbox.set_flags("INBOX", [uid], remove=["\\Flagged"])
    assert dovecot.flags("INBOX", uid) == ("\\Seen",)


@pytest.mark.parametrize("use_move", [True, False], ids=["MOVE", "UIDPLUS"])
def test_move_touches_only_its_uids(
    dovecot: DovecotServer, mailbox: Mailbox, use_move: bool
) -> None:
    # Another client marked a message deleted and has not expunged it yet.
    theirs = dovecot.append("INBOX", message("Theirs"), ["\\Deleted"])
    ours = dovecot.append("INBOX", message("Ours"))
    kept = dovecot.append("INBOX", message("Kept"))
    mailbox.can_move = use_move  # the path a server without MOVE takes
    moved = mailbox.move("INBOX", [ours], "Archive")
    assert dovecot.uids("INBOX") == [theirs, kept]
    assert "\\Deleted" in dovecot.flags("INBOX", theirs)
    assert moved == {ours: dovecot.uids("Archive")[0]}
    assert b"Subject: Ours" in dovecot.fetch_raw("Archive", moved[ours])


def test_trash_moves_then_deletes_only_its_uids(dovecot: DovecotServer, mailbox: Mailbox) -> None:
    ours = dovecot.append("INBOX", message("Spam"))
    moved = mailbox.trash("INBOX", [ours])
    assert moved is not None and dovecot.uids("INBOX") == []
    in_trash = moved[ours]
    theirs = dovecot.append("Trash", message("Theirs"), ["\\Deleted"])
    assert mailbox.trash("Trash", [in_trash]) is None
    assert dovecot.uids("Trash") == [theirs]
    assert "\\Deleted" in dovecot.flags("Trash", theirs)
