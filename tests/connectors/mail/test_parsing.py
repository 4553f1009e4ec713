"""Bounded MIME reading: text chosen safely, attachments only listed, caps and deadline kept."""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime

import pytest

from hearth.connectors.mail.objects import Address, ParsedBody
from hearth.connectors.mail.parsing import (
    MAX_DEPTH,
    MAX_PARTS,
    MAX_TEXT_CHARS,
    header_concerns,
    parse_body,
    parse_headers,
)


def kinds(body: ParsedBody) -> set[str]:
    return {concern.kind for concern in body.concerns}


def multipart(subtype: str, *parts: str, boundary: str = "sep") -> bytes:
    inner = "".join(f"--{boundary}\n{part}\n" for part in parts)
    head = f"Content-Type: multipart/{subtype}; boundary={boundary}\n\n"
    return (head + inner + f"--{boundary}--\n").encode()


def nested(depth: int, inner: str) -> bytes:
    """`depth` multiparts each holding the next, built without recursion."""
    opening = [f"Content-Type: multipart/mixed; boundary=b{n}\n\n--b{n}\n" for n in range(depth)]
    closing = [f"\n--b{n}--\n" for n in reversed(range(depth))]
    return ("".join(opening) + f"Content-Type: text/plain\n\n{inner}" + "".join(closing)).encode()


def test_plain_text() -> None:
    body = parse_body(b"Subject: hi\nContent-Type: text/plain; charset=utf-8\n\nHello there\n")
    assert body == ParsedBody("Hello there")


def test_no_headers_at_all_is_plain_text() -> None:
    assert parse_body(b"\nJust a body\n").text == "Just a body"


def test_html_only_is_rendered_to_text() -> None:
    raw = b"Content-Type: text/html\n\n<html><body><p>Hello <b>world</b></p></body></html>\n"
    body = parse_body(raw)
    assert "Hello" in body.text and "world" in body.text
    assert "<" not in body.text


def test_alternative_prefers_plain_text() -> None:
    raw = multipart(
        "alternative",
        "Content-Type: text/html\n\n<p>HTML VERSION</p>",
        "Content-Type: text/plain\n\nPLAIN VERSION",
    )
    body = parse_body(raw)
    assert body.text == "PLAIN VERSION"


def test_alternative_without_plain_uses_html() -> None:
    raw = multipart(
        "alternative",
        "Content-Type: image/png\n\nxx",
        "Content-Type: text/html\n\n<p>ONLY HTML</p>",
    )
    assert parse_body(raw).text == "ONLY HTML"


def test_attachments_are_listed_never_opened() -> None:
    encoded = base64.b64encode("report\u202efdp.exe".encode()).decode()
    override_name = f"=?utf-8?b?{encoded}?="
    raw = multipart(
        "mixed",
        "Content-Type: text/plain\n\nSee attached.",
        'Content-Type: text/plain; name="notes.txt"\nContent-Disposition: attachment\n\n'
        "SECRET IN ATTACHMENT",
        "Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n"
        'Content-Disposition: attachment; filename="invoice\u202egpj\u200b.exe"\n\n'
        "AAAAAAAA\nAAAA\n",
        f"Content-Type: application/pdf; name={override_name}\n\nnot decoded",
    )
    body = parse_body(raw)
    assert body.text == "See attached."
    listed = [(item.filename, item.content_type, item.size) for item in body.attachments]
    assert listed[0] == ("notes.txt", "text/plain", len("SECRET IN ATTACHMENT"))
    assert listed[1] == ("invoicegpj.exe", "application/octet-stream", 9)
    assert listed[2][:2] == ("reportfdp.exe", "application/pdf")


def test_rfc2231_filename_is_decoded_and_capped() -> None:
    long_name = "a" * 500
    raw = multipart(
        "mixed",
        "Content-Type: application/zip\n"
        "Content-Disposition: attachment; filename*=utf-8''r%C3%A9sum%C3%A9.zip\n\nzz",
        f'Content-Type: application/zip; name="{long_name}"\n\nzz',
    )
    names = [item.filename for item in parse_body(raw).attachments]
    assert names == ["résumé.zip", "a" * 200]


def test_nested_message_is_listed_not_read() -> None:
    inner = "Subject: inner\nContent-Type: text/plain\n\nINNER MESSAGE TEXT"
    raw = multipart(
        "mixed", "Content-Type: text/plain\n\nOuter.", f"Content-Type: message/rfc822\n\n{inner}"
    )
    body = parse_body(raw)
    assert body.text == "Outer."
    assert [item.content_type for item in body.attachments] == ["message/rfc822"]


def test_hidden_characters_are_counted_into_concerns() -> None:
    raw = multipart(
        "mixed",
        "Content-Type: text/plain; charset=utf-8\n\npay\u200b\u202eme",
        'Content-Type: text/html; charset=utf-8\n\n<p>shown</p><p style="display:none">secret</p>',
    )
    body = parse_body(raw)
    assert "payme" in body.text and "shown" in body.text and "secret" not in body.text
    assert body.hidden_chars >= 2 + len("secret")
    assert "hidden_text" in kinds(body)


def test_broken_charset_and_encodings_still_give_text() -> None:
    raw = multipart(
        "mixed",
        "Content-Type: text/plain; charset=x-no-such\n\ncaf\xe9",
        "Content-Type: text/plain; charset=zlib_codec\n\nbytes",
        "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8=!!x",
        "Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\nq=3Dp =ZZ",
    )
    body = parse_body(raw)
    assert "café" in body.text and "bytes" in body.text and "hello" in body.text
    assert "q=p" in body.text
    assert "malformed" in kinds(body)


def test_more_than_max_parts_is_truncated() -> None:
    parts = [f"Content-Type: text/plain\n\npart {n}." for n in range(MAX_PARTS + 1)]
    body = parse_body(multipart("mixed", *parts))
    assert "part 0." in body.text
    assert f"part {MAX_PARTS}." not in body.text
    assert "truncated" in kinds(body)


def test_nesting_within_the_cap_is_read() -> None:
    assert parse_body(nested(MAX_DEPTH, "SHALLOW")).text == "SHALLOW"


def test_nesting_past_the_cap_is_not_walked() -> None:
    body = parse_body(nested(MAX_DEPTH + 3, "DEEP"))
    assert "DEEP" not in body.text
    assert "malformed" in kinds(body)


@pytest.mark.timeout(20)
def test_nesting_5000_deep_is_quick() -> None:
    started = time.monotonic()
    body = parse_body(nested(5000, "DEEP"))
    assert time.monotonic() - started < 5
    assert body.text == "" and "malformed" in kinds(body)


@pytest.mark.timeout(20)
def test_50_mb_message_is_cut_and_fast() -> None:
    raw = b"Content-Type: text/plain\n\n" + b"x" * 50_000_000
    started = time.monotonic()
    body = parse_body(raw)
    assert time.monotonic() - started < 5
    assert len(body.text) == MAX_TEXT_CHARS
    assert "truncated" in kinds(body)


def test_zero_deadline_gives_a_truncated_result() -> None:
    body = parse_body(multipart("mixed", "Content-Type: text/plain\n\nhi"), deadline_s=0)
    assert body.text == ""
    assert kinds(body) == {"truncated"}


HEADERS = (
    "From: =?utf-8?q?Al=C3=AFce?= <alice@example.org>\r\n"
    "To: Bob <bob@example.com>,\r\n carol@example.net\r\n"
    "Cc: Team: dan@example.org;\r\n"
    "Reply-To: alice@example.org\r\n"
    "Subject: =?utf-8?q?Hi_there?= \u200bfriend\r\n"
    "Date: Tue, 01 Oct 2024 10:00:00 +0000\r\n"
    "Message-ID: <m1@example.org>\r\n"
    "In-Reply-To: <m0@example.org>\r\n"
    "References: <a@example.org> <m0@example.org>\r\n"
    "\r\n"
).encode()


def test_headers_give_an_envelope() -> None:
    envelope = parse_headers(HEADERS, folder="INBOX", uid=7, flags=["\\Seen"], size=123)
    assert envelope.sender == Address("Alïce", "alice@example.org")
    assert envelope.to == (Address("Bob", "bob@example.com"), Address("", "carol@example.net"))
    assert envelope.cc == (Address("", "dan@example.org"),)
    assert envelope.reply_to == (Address("", "alice@example.org"),)
    assert envelope.subject == "Hi there friend"
    assert envelope.date == datetime(2024, 10, 1, 10, 0, tzinfo=UTC)
    assert (envelope.message_id, envelope.in_reply_to) == ("<m1@example.org>", "<m0@example.org>")
    assert envelope.references == "<a@example.org> <m0@example.org>"
    assert (envelope.folder, envelope.uid, envelope.flags, envelope.size) == (
        "INBOX",
        7,
        ("\\Seen",),
        123,
    )
    assert header_concerns(HEADERS) == ()


@pytest.mark.parametrize(
    "from_header",
    [
        "From: alice@example.org <bob@evil.test>\n",
        "From: alice@example.org)<bob@evil.test>\n",
        "From: a@example.org\nFrom: b@evil.test\n",
        "From: a@example.org, b@evil.test\n",
    ],
)
def test_unreadable_from_gives_no_sender_and_a_concern(from_header: str) -> None:
    raw = (from_header + "Subject: x\nDate: not a date\n\n").encode()
    envelope = parse_headers(raw, folder="INBOX", uid=1)
    assert envelope.sender is None and envelope.date is None
    (concern,) = header_concerns(raw)
    assert concern.kind == "malformed"
    assert concern.text.startswith("the From address cannot be read one way only")


def test_unreadable_reply_to_is_a_concern() -> None:
    raw = b"From: a@example.org\nReply-To: a@example.org <b@evil.test>\n\n"
    assert parse_headers(raw, folder="INBOX", uid=1).reply_to == ()
    assert [c.text.split(":")[0] for c in header_concerns(raw)] == [
        "the Reply-To address cannot be read one way only"
    ]
