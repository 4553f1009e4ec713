"""Text as IMAP SEARCH compares it: Dovecot's folding, and the parts BODY reads.

The expected answers are what Dovecot 2.3 answered to the same keys on the same text;
test_search_differential.py asks a real Dovecot on messages built from them.
"""

from __future__ import annotations

import base64

import pytest

from hearth.connectors.mail.search_text import body_text, fold


def found(key: str, text: str) -> bool:
    return fold(key) in fold(text)


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("invoice", "Your INVOICE", True),
        ("cafe", "Café", True),  # é is E and a mark after it: "cafe" is a prefix
        ("cafes", "Cafés", False),
        ("café", "CAFÉ", True),
        ("muller", "Müller", False),
        ("MÜLLER", "müller", True),
        ("ss", "Straße", False),  # ß has no one-letter capital
        ("ß", "STRAßE", True),
        ("istanbul", "ıstanbul", True),  # dotless ı capitalises to I
        ("İstanbul", "istanbul", False),
        ("σ", "ΣΟΦΊΑ ς", True),
        ("µ", "μ", True),  # micro sign and Greek mu
        ("ü", "ǖ", False),  # decomposed one level only
        ("ǆ", "Ǆ ǅ", True),
        ("dž", "ǅ", False),  # titlecase letters stay whole
        ("ffi", "ﬃ", False),  # a ligature decomposes to small letters
        ("ﬃ", "ﬃ", True),
        ("1⁄2", "½", True),
        ("1/2", "½", False),
        ("abc", "Ａｂｃ", True),  # fullwidth
        ("カ", "ｶ", True),  # halfwidth katakana
        ("ᄒ", "한글", True),  # Hangul syllables into jamo
        ("s", "ſ", True),
        ("kg", "㎏", False),
    ],
)
def test_fold_finds_what_dovecot_finds(key: str, text: str, expected: bool) -> None:
    assert found(key, text) is expected


def test_fold_keeps_ascii_fast_and_exact() -> None:
    assert fold("Hello, World! 123") == "HELLO, WORLD! 123"
    assert fold("") == ""


def mime(body: str, boundary: str = "b1") -> bytes:
    head = f'From: a@b.example\r\nContent-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n'
    return (head + body).encode()


def test_body_text_reads_every_text_part_as_written() -> None:
    encoded = base64.b64encode("hippopotamus über".encode()).decode()
    raw = mime(
        "preamble zebra\r\n"
        "--b1\r\nContent-Type: multipart/alternative; boundary=b2\r\n\r\n"
        "--b2\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
        "soft=\r\nbreak caf=C3=A9\r\n"
        "--b2\r\nContent-Type: text/html; charset=iso-8859-1\r\n\r\n"
        '<div style="color:red">inv<b>oice</b> caf&eacute; M\xfcller</div>\r\n'
        "--b2--\r\n"
        "--b1\r\nContent-Type: text/plain; name=notes.txt; charset=utf-8\r\n"
        "Content-Disposition: attachment; filename=notes.txt\r\n"
        f"Content-Transfer-Encoding: base64\r\n\r\n{encoded}\r\n"
        "--b1\r\nContent-Type: application/octet-stream\r\n\r\ngiraffe\r\n"
        "--b1\r\nContent-Type: message/rfc822\r\n\r\n"
        "Subject: walrus\r\nContent-Type: text/plain\r\n\r\nnarwhal\r\n"
        "--b1--\r\nepilogue yak\r\n"
    )
    text = body_text(raw.replace("\xfc".encode(), b"\xfc"))
    assert text is not None
    for present in ("softbreak", "café", "div", "eacute", "müller", "hippopotamus", "narwhal"):
        assert fold(present) in text, present
    # Not text, not a part, or a header: BODY does not read these.
    for absent in ("zebra", "yak", "giraffe", "walrus", "invoice", "content-type"):
        assert fold(absent) not in text, absent


def test_body_text_reads_us_ascii_labelled_8bit_as_utf8() -> None:
    raw = "Content-Type: text/plain; charset=us-ascii\r\n\r\nGrüße\r\n".encode()
    assert body_text(raw) == fold("Grüße\r\n")


def test_a_message_too_deep_or_too_wide_is_left_to_the_server() -> None:
    deep = "".join(
        f'--d{n}\r\nContent-Type: multipart/mixed; boundary="d{n + 1}"\r\n\r\n' for n in range(20)
    )
    assert body_text(mime(deep, "d0")) is None
    wide = "".join("--w\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(300)) + "--w--\r\n"
    assert body_text(mime(wide, "w")) is None
    assert body_text(mime("--b1\r\n\r\nfine\r\n--b1--\r\n")) == fold("fine")


@pytest.mark.parametrize(
    "raw",
    [
        b"From MAILER-DAEMON Fri Apr 06 16:46:09 2001\r\nSubject: x\r\n\r\nhello\r\n",
        b"Content-Type: text; charset=us-ascii\r\n\r\nhello\r\n",  # no subtype
        b"Content-Type: text/plain\r\nContent-Type: text/html\r\n\r\nhello\r\n",
        b"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!%%==aGVsbG8=\r\n",
        b"Content-Type: multipart/mixed; boundary*=\"us-ascii''b1\"\r\n\r\n"
        b"--b1\r\n\r\nhello\r\n--b1--\r\n",  # RFC 2231: not every server reads it
        b"Content-Type: multipart/mixed\r\n\r\n--b1\r\n\r\nhello\r\n--b1--\r\n",  # no boundary
        b"Content-Type: multipart/digest; boundary=b1\r\n\r\n--b1\r\n\r\nhello\r\n--b1--\r\n",
    ],
)
def test_broken_structure_is_left_to_the_server(raw: bytes) -> None:
    assert body_text(raw) is None
