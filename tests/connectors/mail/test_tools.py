"""The mail tools against real Dovecot and aiosmtpd servers over TLS: reading never marks
anything read, sending files exactly one Sent copy, moves act by UID only, a renumbered folder
is re-cached, and a send whose connection dropped after DATA is never repeated."""

from __future__ import annotations

import email
from email import policy

import pytest

from hearth.connectors.evaluation.servers.dovecot import ADDRESS, DovecotServer, message
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail import sending
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.errors import MailError
from tests.connectors.mail.kit import run

pytestmark = pytest.mark.server


def test_list_search_and_read_leave_every_message_unread(
    dovecot: DovecotServer, connector: MailConnector
) -> None:
    first = dovecot.append("INBOX", message("Invoice March", "Please pay 120 EUR by Friday."))
    dovecot.append("INBOX", message("Lunch?", "Noodles at noon?", sender="Carol <carol@x.org>"))

    listing = run(connector, "mail.list")
    assert [m.subject for m in listing.messages] == ["Lunch?", "Invoice March"]
    assert all(m.unread for m in listing.messages)
    found = run(connector, "mail.search", words="invoice")
    assert [m.id for m in found.messages] == [f"INBOX/{first}"]
    text = run(connector, "mail.read", message=f"INBOX/{first}")
    assert "Please pay 120 EUR" in text.text and text.sender == "Bob <bob@example.com>"

    assert "\\Seen" not in dovecot.flags("INBOX", first)
    assert run(connector, "mail.list", unread=True).messages[-1].id == f"INBOX/{first}"


def test_reading_works_offline_from_the_cache(
    dovecot: DovecotServer, connector: MailConnector
) -> None:
    uid = dovecot.append("INBOX", message("Tickets", "Row 7, seats 3 and 4."))
    run(connector, "mail.read", message=f"INBOX/{uid}")
    dovecot.stop()
    listing = run(connector, "mail.list")
    assert listing.note and "Offline" in listing.note
    assert [m.subject for m in listing.messages] == ["Tickets"]
    assert "Row 7" in run(connector, "mail.read", message=f"INBOX/{uid}").text
    assert [m.subject for m in run(connector, "mail.search", words="seats").messages] == ["Tickets"]


def test_send_delivers_once_and_files_exactly_one_sent_copy(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    sent = run(
        connector,
        "mail.send",
        to=["Bob <bob@example.com>"],
        subject="Q4 plan",
        body="Draft attached soon.",
        bcc=["boss@example.com"],
    )
    assert sent.state == "filed"
    [received] = smtp_server.received
    assert sorted(received.rcpt_tos) == ["bob@example.com", "boss@example.com"]
    delivered = email.message_from_bytes(received.data, policy=policy.default)
    assert delivered["Message-ID"] == sent.message_id and delivered["Bcc"] is None
    copies = [
        email.message_from_bytes(dovecot.fetch_raw("Sent", uid)) for uid in dovecot.uids("Sent")
    ]
    assert [c["Message-ID"] for c in copies] == [sent.message_id]
    sending.file_copy(connector.account, sent.message_id)
    assert len(dovecot.uids("Sent")) == 1


def test_a_copy_already_in_sent_is_not_appended_twice(
    dovecot: DovecotServer, connector: MailConnector
) -> None:
    """Hearth stopped after APPEND but before noting it: the retry finds the Message-ID."""
    raw = message("Minutes", "Attached.", sender=f"Ann <{ADDRESS}>", to="bob@example.com")
    mid = email.message_from_bytes(raw)["Message-ID"]
    outbox = connector.account.outbox
    outbox.add(mid, raw, ADDRESS, ["bob@example.com"])
    outbox.mark(mid, "sent")
    dovecot.append("Sent", raw, ["\\Seen"])
    assert sending.file_copy(connector.account, mid).state == "filed"
    assert len(dovecot.uids("Sent")) == 1


def test_a_server_that_files_sent_mail_itself_gets_no_second_copy(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    account = connector.account
    account.save(account.settings().model_copy(update={"server_files_sent": "yes"}))
    assert (
        run(connector, "mail.send", to=["bob@example.com"], subject="Hi", body="Hello").state
        == "filed"
    )
    assert len(smtp_server.received) == 1 and dovecot.uids("Sent") == []


def test_a_dropped_connection_after_data_is_unknown_never_resent_and_reconciled(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    smtp_server.drop_after_data = True
    result = run(connector, "mail.send", to=["bob@example.com"], subject="Contract", body="Signed.")
    assert result.state == "unknown"
    assert len(smtp_server.received) == 1
    account = connector.account
    assert account.outbox.get(result.message_id).state == "unknown"
    # A restart recovers nothing to send: unknown stays unknown, nothing goes out again.
    again = MailAccount(account.settings_store, account.cache.path.parent)
    assert again.outbox.get(result.message_id).state == "unknown"
    assert len(smtp_server.received) == 1
    assert sending.reconcile(account, result.message_id) is False
    # The server did file it (as Gmail does): the Message-ID in Sent settles it.
    dovecot.append("Sent", smtp_server.received[0].data, ["\\Seen"])
    assert sending.reconcile(account, result.message_id) is True
    assert account.outbox.get(result.message_id).state == "filed"
    assert len(smtp_server.received) == 1


def test_mail_sent_offline_waits_for_the_users_confirmation(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    port = smtp_server.port
    smtp_server.stop()
    result = run(connector, "mail.send", to=["bob@example.com"], subject="Later", body="Soon.")
    assert result.state == "queued" and "confirm" in (result.note or "")
    restarted = SmtpServer(smtp_server.ca, "tls")
    restarted.port = port
    restarted.start()
    try:
        assert restarted.received == []
        assert sending.send_queued(connector.account, result.message_id).state == "filed"
        assert len(restarted.received) == 1
        with pytest.raises(MailError, match="not waiting"):
            sending.send_queued(connector.account, result.message_id)
        assert len(restarted.received) == 1
    finally:
        restarted.stop()


def test_the_same_send_again_sends_the_waiting_message_not_a_second_one(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    port = smtp_server.port
    smtp_server.stop()
    mail = {"to": ["bob@example.com"], "subject": "Later", "body": "Soon."}
    waiting = run(connector, "mail.send", **mail)
    other = run(connector, "mail.send", **{**mail, "body": "Something else."})
    restarted = SmtpServer(smtp_server.ca, "tls")
    restarted.port = port
    restarted.start()
    try:
        again = run(connector, "mail.send", **mail)
        assert (again.message_id, again.state) == (waiting.message_id, "filed")
        assert len(restarted.received) == 1
        outbox = connector.account.outbox
        assert [e.message_id for e in outbox.entries(["queued"])] == [other.message_id]
        assert len(outbox.entries()) == 2
    finally:
        restarted.stop()


def test_reply_goes_to_reply_to_with_threading_headers(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    original = message(
        "Order 991",
        "Where is it?",
        sender="Shop <orders@shop.example>",
        Reply_To="Support <help@shop.example>",
        References="<a@shop.example>",
    )
    uid = dovecot.append("INBOX", original)
    parent = email.message_from_bytes(original)["Message-ID"]
    preview = connector.preview_reply({"message": f"INBOX/{uid}", "body": "It arrived."})
    assert "To: Support <help@shop.example>" in preview
    assert "Reply-To" in preview and "help@shop.example" in preview
    result = run(connector, "mail.reply", message=f"INBOX/{uid}", body="It arrived, thanks.")
    [received] = smtp_server.received
    assert received.rcpt_tos == ["help@shop.example"]
    sent = email.message_from_bytes(received.data, policy=policy.default)
    assert sent["Subject"] == "Re: Order 991" and sent["In-Reply-To"] == parent
    assert sent["References"].split() == ["<a@shop.example>", parent]
    assert result.to == ["help@shop.example"]


def test_move_and_trash_act_by_uid_and_leave_another_clients_deleted_message(
    dovecot: DovecotServer, connector: MailConnector
) -> None:
    keep = dovecot.append("INBOX", message("Another client's deleted mail"), ["\\Deleted"])
    news = dovecot.append("INBOX", message("Newsletter"))
    bill = dovecot.append("INBOX", message("Bill"))
    moved = run(connector, "mail.move", messages=[f"INBOX/{bill}"], folder="Archive")
    trashed = run(connector, "mail.trash", messages=[f"INBOX/{news}"])
    assert dovecot.uids("INBOX") == [keep]
    assert "\\Deleted" in dovecot.flags("INBOX", keep)
    assert len(dovecot.uids("Archive")) == 1 and len(dovecot.uids("Trash")) == 1
    assert trashed.destination == "Trash" and moved.new_ids
    preview = connector.preview_move({"messages": [f"INBOX/{keep}"], "folder": "Junk"})
    assert "Move to Junk" in preview and f"INBOX/{keep}" in preview
    connector.undo_move({}, moved)
    connector.undo_move({}, trashed)
    assert sorted(dovecot.uids("INBOX"))[0] == keep and len(dovecot.uids("INBOX")) == 3
    assert dovecot.uids("Archive") == [] and dovecot.uids("Trash") == []


def test_flag_and_its_undo(dovecot: DovecotServer, connector: MailConnector) -> None:
    uid = dovecot.append("INBOX", message("Flag me"))
    changed = run(connector, "mail.flag", messages=[f"INBOX/{uid}"], state="flagged")
    assert "\\Flagged" in dovecot.flags("INBOX", uid)
    connector.undo_flag({}, changed)
    assert "\\Flagged" not in dovecot.flags("INBOX", uid)


def test_a_renumbered_folder_is_dropped_from_the_cache_and_read_again(
    dovecot: DovecotServer, connector: MailConnector
) -> None:
    for subject in ("One", "Two"):
        dovecot.append("INBOX", message(subject))
    before = {m.id: m.subject for m in run(connector, "mail.list").messages}
    dovecot.reset_uidvalidity("INBOX")
    after = {m.id: m.subject for m in run(connector, "mail.list").messages}
    assert sorted(after.values()) == ["One", "Two"]
    assert set(after) == {f"INBOX/{uid}" for uid in dovecot.uids("INBOX")}
    assert before  # the old numbering was listed before the reset


def test_draft_is_saved_in_drafts_and_nothing_is_sent(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    saved = run(connector, "mail.draft", to=["bob@example.com"], subject="Idea", body="What if we…")
    [uid] = dovecot.uids("Drafts")
    assert "\\Draft" in dovecot.flags("Drafts", uid)
    assert saved.message_id in dovecot.fetch_raw("Drafts", uid).decode()
    assert smtp_server.received == []


def test_recipients_that_read_two_ways_are_refused_before_anyone_is_asked(
    connector: MailConnector,
) -> None:
    with pytest.raises(MailError):
        connector.check_send(
            {"to": ["alice@example.org)<bob@evil.test>"], "subject": "s", "body": "b"}
        )
    with pytest.raises(MailError):
        connector.check_send(
            {"to": ["bob@example.com"], "subject": "s\r\nBcc: eve@evil.test", "body": "b"}
        )
    people = connector.recipients_of_send(
        {
            "to": ['"alice@example.org" <bob@evil.test>'],
            "subject": "s",
            "body": "b",
            "bcc": ["eve@evil.test"],
        }
    )
    assert people == ["bob@evil.test", "eve@evil.test"]
    assert ADDRESS  # Ann's own address is the sender, never a recipient here


def test_the_accounts_page_offers_to_look_for_an_unknown_send_in_sent(
    dovecot: DovecotServer, smtp_server: SmtpServer, connector: MailConnector
) -> None:
    smtp_server.drop_after_data = True
    result = run(connector, "mail.send", to=["bob@example.com"], subject="Lost?", body="b")
    [look] = connector.actions()
    assert look.label == "Look for 1 message in Sent" and not look.confirm
    assert "1 message not there" in look.run()
    dovecot.append("Sent", smtp_server.received[0].data, ["\\Seen"])
    [look] = connector.actions()
    assert look.run() == "Found 1 message in Sent: they were sent."
    assert connector.actions() == []
    assert connector.account.outbox.get(result.message_id).state == "filed"  # type: ignore[union-attr]
    assert len(smtp_server.received) == 1
