"""Composing: the bytes sent, header injection refused, the preview, replies threaded."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from hearth.connectors.mail.compose import (
    Draft,
    build_message,
    new_message_id,
    render_preview,
    reply_draft,
)
from hearth.connectors.mail.errors import MailError
from hearth.connectors.mail.objects import Address, Envelope

ANN = Address("Ann Example", "ann@example.org")
BOB = Address("Bob", "Bob@Example.com")
CAROL = Address("", "carol@example.net")
DAVE = Address("Dave", "dave@example.net")
MESSAGE_ID = "<abc.123@example.org>"


def _draft(**changes: object) -> Draft:
    fields: dict[str, object] = {
        "sender": ANN,
        "to": (BOB,),
        "subject": "Lunch on Friday?",
        "body": "Shall we meet at noon?\n.\nAnn",
        "cc": (CAROL,),
        "bcc": (DAVE,),
    }
    fields.update(changes)
    return Draft(**fields)  # type: ignore[arg-type]


def _parsed(raw: bytes) -> EmailMessage:
    parsed = message_from_bytes(raw, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _text(message: EmailMessage) -> str:
    content = message.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def test_message_has_the_given_id_headers_and_body() -> None:
    date = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    raw = build_message(_draft(), message_id=MESSAGE_ID, date=date)
    message = _parsed(raw)
    assert message["Message-ID"] == MESSAGE_ID
    assert message["From"] == "Ann Example <ann@example.org>"
    assert message["To"] == "Bob <Bob@Example.com>"
    assert message["Cc"] == "carol@example.net"
    assert message["Subject"] == "Lunch on Friday?"
    assert message["Date"].datetime == date
    assert message.get_content_type() == "text/plain"
    assert message.get_content_charset() == "utf-8"
    assert _text(message) == "Shall we meet at noon?\n.\nAnn\n"
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")


def test_bcc_is_an_envelope_recipient_but_never_a_header() -> None:
    draft = _draft()
    raw = build_message(draft, message_id=MESSAGE_ID)
    assert "dave@example.net" in draft.recipients
    assert b"dave@example.net" not in raw.lower()
    assert b"bcc" not in raw.lower()


def test_recipients_are_lower_cased_and_deduped() -> None:
    draft = _draft(cc=(Address("B.", "bob@example.com"), CAROL), bcc=(CAROL,))
    assert draft.recipients == ("bob@example.com", "carol@example.net")


def test_non_ascii_travels_seven_bit_and_reads_back() -> None:
    draft = _draft(
        sender=Address("Zoë Müller", "zoe@example.org"), subject="Grüße", body="Schöne Grüße ☕"
    )
    raw = build_message(draft, message_id=MESSAGE_ID)
    assert raw.isascii()
    message = _parsed(raw)
    assert message["Subject"] == "Grüße"
    assert message["From"].addresses[0].display_name == "Zoë Müller"
    assert _text(message) == "Schöne Grüße ☕\n"


def test_threading_headers_only_when_set() -> None:
    plain = _parsed(build_message(_draft(), message_id=MESSAGE_ID))
    assert plain["In-Reply-To"] is None and plain["References"] is None
    reply = _parsed(
        build_message(_draft(in_reply_to="<a@x>", references="<z@x> <a@x>"), message_id=MESSAGE_ID)
    )
    assert reply["In-Reply-To"] == "<a@x>"
    assert reply["References"] == "<z@x> <a@x>"


@pytest.mark.parametrize(
    "changes",
    [
        {"subject": "Hi\r\nBcc: eve@evil.example"},
        {"subject": "Hi\nX-Injected: 1"},
        {"subject": "Hi\x00"},
        {"to": (Address("Bob\r\nBcc: eve@evil.example", "bob@example.com"),)},
        {"cc": (Address("", "carol@example.net\nBcc: eve@evil.example"),)},
        {"bcc": (Address("", "dave@example.net\r"),)},
        {"sender": Address("Ann\n", "ann@example.org")},
        {"in_reply_to": "<a@x>\r\nBcc: eve@evil.example"},
        {"references": "<a@x>\n<b@x>"},
    ],
)
def test_header_injection_is_refused_not_folded(changes: dict[str, object]) -> None:
    with pytest.raises(MailError, match="line break or NUL"):
        build_message(_draft(**changes), message_id=MESSAGE_ID)


def test_a_message_needs_a_recipient() -> None:
    with pytest.raises(MailError, match="at least one recipient"):
        build_message(_draft(to=(), cc=(), bcc=()), message_id=MESSAGE_ID)


def test_bcc_only_message_has_no_to_header() -> None:
    raw = build_message(_draft(to=(), cc=()), message_id=MESSAGE_ID)
    assert _parsed(raw)["To"] is None


def test_new_message_id_is_unique_and_in_the_sender_domain() -> None:
    first, second = new_message_id(ANN), new_message_id(ANN)
    assert first != second
    assert first.startswith("<") and first.endswith("@example.org>")


def test_preview_shows_every_real_address_warnings_and_body() -> None:
    preview = render_preview(_draft(), warnings=["Bob is outside your organisation"])
    assert preview == (
        "From: Ann Example <ann@example.org>\n"
        "To: Bob <Bob@Example.com>\n"
        "Cc: carol@example.net\n"
        "Bcc: Dave <dave@example.net>\n"
        "Subject: Lunch on Friday?\n"
        "⚠ Bob is outside your organisation\n"
        "\n"
        "Shall we meet at noon?\n.\nAnn"
    )


def test_preview_omits_empty_cc_and_bcc() -> None:
    preview = render_preview(_draft(cc=(), bcc=()))
    assert "Cc:" not in preview and "Bcc:" not in preview


def test_preview_name_posing_as_an_address_cannot_hide_the_real_one() -> None:
    spoof = Address("boss@example.org", "eve@evil.example")
    bidi = Address("Bob \u202egro.elpmaxe@bob", "eve@evil.example")
    preview = render_preview(_draft(to=(spoof, bidi), subject="a\nb"))
    assert 'To: "boss@example.org" <eve@evil.example>, ' in preview
    assert "\u202e" not in preview and "\\u{202e}" in preview
    assert "Subject: a\\u{000a}b" in preview


def test_preview_caps_a_long_body() -> None:
    preview = render_preview(_draft(body="x" * 4010))
    assert preview.endswith("x" * 4000 + "… (10 more characters)")


def _original(**changes: object) -> Envelope:
    fields: dict[str, object] = {
        "folder": "INBOX",
        "uid": 7,
        "message_id": "<orig@example.com>",
        "subject": "Plans",
        "sender": BOB,
        "to": (ANN, CAROL),
        "cc": (Address("Ann again", "ANN@example.org"), DAVE),
        "references": "<first@example.com>",
    }
    fields.update(changes)
    return Envelope(**fields)  # type: ignore[arg-type]


def test_reply_goes_to_the_sender_and_threads() -> None:
    draft = reply_draft(_original(), sender=ANN, body="Yes!")
    assert draft.to == (BOB,)
    assert draft.cc == ()
    assert draft.subject == "Re: Plans"
    assert draft.in_reply_to == "<orig@example.com>"
    assert draft.references == "<first@example.com> <orig@example.com>"
    assert draft.sender == ANN and draft.body == "Yes!"


def test_reply_prefers_reply_to_and_prefixes_re_once() -> None:
    list_address = Address("Team list", "team@lists.example.com")
    original = _original(reply_to=(list_address,), subject="RE: Plans", references="")
    draft = reply_draft(original, sender=ANN, body="ok")
    assert draft.to == (list_address,)
    assert draft.subject == "RE: Plans"
    assert draft.references == "<orig@example.com>"


def test_reply_all_adds_to_and_cc_minus_own_addresses() -> None:
    draft = reply_draft(
        _original(), sender=ANN, body="ok", reply_all=True, own_addresses=["dave@example.net"]
    )
    assert draft.to == (BOB, CAROL)
    assert draft.cc == ()
    draft = reply_draft(_original(), sender=ANN, body="ok", reply_all=True)
    assert draft.cc == (DAVE,)


def test_reply_without_any_sender_is_refused() -> None:
    with pytest.raises(MailError, match="no one to reply to"):
        reply_draft(_original(sender=None), sender=ANN, body="?")
