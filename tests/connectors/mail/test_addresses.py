"""Strict address reading: the CVE-2023-27043 cases refuse or give the one real address."""

from __future__ import annotations

import pytest

from hearth.connectors.mail.addresses import (
    MAX_RECIPIENTS,
    decode_text,
    parse_address_list,
    parse_recipients,
)
from hearth.connectors.mail.errors import BadAddress, MailError
from hearth.connectors.mail.objects import Address

ALICE = "alice@example.org"
BOB = "bob@example.com"

# CPython's gh-102988 fix: `alice@example.org<sep><bob@example.com>` must not yield an address.
CVE_SEPARATORS = ["(", ")", "<", ">", "[", "]", "@", ";", ":", ".", '"']


@pytest.mark.parametrize("separator", CVE_SEPARATORS)
def test_cve_2023_27043_separator_cases_are_refused(separator: str) -> None:
    with pytest.raises(BadAddress, match="cannot be read"):
        parse_address_list(f"{ALICE}{separator}<{BOB}>")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (f"{ALICE},<{BOB}>", [("", ALICE), ("", BOB)]),
        ('"Alice, alice@example.org" <bob@example.com>', [("Alice, alice@example.org", BOB)]),
        ('"alice@example.org" <bob@evil.test>', [("alice@example.org", "bob@evil.test")]),
        (
            '"Alice <alice@example.org>" <bob@example.org>',
            [("Alice <alice@example.org>", "bob@example.org")],
        ),
        (
            "Alice <alice@example.org>, Bob <bob@example.org>",
            [("Alice", ALICE), ("Bob", "bob@example.org")],
        ),
        ("a@b, c@d", [("", "a@b"), ("", "c@d")]),
        ("alice@example.org (Alice)", [("", ALICE)]),
        (
            '"Jane Doe" <jane@example.net>, "John Doe" <john@example.net>',
            [("Jane Doe", "jane@example.net"), ("John Doe", "john@example.net")],
        ),
        ('"Sürname, Firstname" <to@example.com>', [("Sürname, Firstname", "to@example.com")]),
        (
            '"Mary Smith: Personal Account" <smith@home.example>',
            [("Mary Smith: Personal Account", "smith@home.example")],
        ),
        (
            r'<boss@nil.test>, "Giant; \"Big\" Box" <bob@example.net>',
            [("", "boss@nil.test"), ('Giant; "Big" Box', "bob@example.net")],
        ),
        (
            r"Pete(A nice \) chap) <pete(his account)@silly.test(his host)>",
            [("Pete", "pete@silly.test")],
        ),
        ("John Q. Public <jqp@example.org>", [("John Q. Public", "jqp@example.org")]),
        ("Team: a@b.org, c@d.org;", [("", "a@b.org"), ("", "c@d.org")]),
        ("Undisclosed recipients:;", []),
        ("foo: ;", []),
        ("", []),
        ("  \r\n ", []),
        ("Alice\r\n <alice@example.org>", [("Alice", ALICE)]),
    ],
)
def test_readable_headers_give_the_real_addresses(
    header: str, expected: list[tuple[str, str]]
) -> None:
    found = parse_address_list(header)
    assert [(address.name, address.email) for address in found] == expected


@pytest.mark.parametrize(
    "header",
    [
        "alice@example.org <bob@example.org>",
        'alice"@example.org>',
        "alice@example.org )Alice(",
        "(Empty list)(start)Undisclosed recipients  :(nobody(I know))",
        "Mary <@machine.tld:mary@example.net>, , jdoe@test   . example",
        "John Doe <jdoe@machine(comment).  example>",
        "x <a@b.org> y",
        "bob",
        "a@",
        "@b",
        "<>",
        '"john doe"@example.org',
        "a@[127.0.0.1]",
        "a@b.org\r\nBcc: c@d.org",
        "a@b.org\x00",
        "(" * 5000 + "a@b.org",
        '"' * 1000 + "a@b.org",
        "a@b.org, " * 2000,
    ],
)
def test_ambiguous_or_broken_headers_are_refused(header: str) -> None:
    with pytest.raises(BadAddress) as refused:
        parse_address_list(header)
    assert isinstance(refused.value, MailError)
    assert str(refused.value)


def test_encoded_display_names_are_decoded() -> None:
    found = parse_address_list("=?utf-8?q?Al=C3=AFce?= <alice@example.org>")
    assert found == (Address("Alïce", ALICE),)


def test_unknown_charset_spoils_only_the_name() -> None:
    (found,) = parse_address_list("=?x-unknown?q?Al=C3=AFce?= <alice@example.org>")
    assert found.email == ALICE
    assert found.name == "Al\ufffd\ufffdce"


def test_recipients_parse_one_address_each_and_drop_duplicates() -> None:
    found = parse_recipients(["Bob <bob@x.org>", "carol@y.org", "BOB@X.ORG", "carol@y.org"])
    assert found == (Address("Bob", "bob@x.org"), Address("", "carol@y.org"))


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        (["bob@x.org\r\nBcc: eve@evil.test"], "line break"),
        (["bob@x.org\nBcc: eve@evil.test"], "line break"),
        (["Bob <bob@x.org>\r\n"], "line break"),
        (["bob@x.org\x00"], "NUL"),
        (["bob@x.org, eve@evil.test"], "exactly one"),
        (["Team: a@b.org, c@d.org;"], "exactly one"),
        ([""], "exactly one"),
        (["alice@example.org <bob@example.org>"], "cannot be read"),
        ([f"user{n}@x.org" for n in range(MAX_RECIPIENTS + 1)], "too many"),
        ("bob@x.org", "list"),
    ],
)
def test_bad_recipients_are_refused_with_a_reason(values: list[str], problem: str) -> None:
    with pytest.raises(BadAddress, match=problem):
        parse_recipients(values)


def test_a_full_list_of_recipients_is_accepted() -> None:
    values = [f"user{n}@x.org" for n in range(MAX_RECIPIENTS)]
    assert len(parse_recipients(values)) == MAX_RECIPIENTS


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("=?utf-8?q?Caf=C3=A9?= =?utf-8?b?w6k=?=", "Caféé"),
        ("=?iso-8859-1?q?f=E9?= and more", "fé and more"),
        (b"=?iso-8859-1?q?f=E9?=\r\n folded", "fé folded"),
        ("=?x-nope?q?Caf=C3=A9?=", "Caf\ufffd\ufffd"),
        ("=?utf-8?b?!!!*?=", ""),
        ("=?utf-8*en?q?hi?=", "hi"),
        ("=?zlib_codec?q?abc?=", "abc"),
        ("=?utf-7?q?+ADw-script+AD4-?=", "<script>"),
        ("a\x00b\x1bc\td\x7f", "abc\td"),
        ("line\r\nInjected: header", "line Injected: header"),
        (b"\xff\xfe raw bytes", "\ufffd\ufffd raw bytes"),
        ("plain subject", "plain subject"),
    ],
)
def test_decode_text_is_tolerant(raw: str | bytes, expected: str) -> None:
    assert decode_text(raw) == expected


def test_decode_text_is_capped() -> None:
    assert len(decode_text("=?utf-8?q?" + "a" * 50_000 + "?=")) == 1_000
    assert len(decode_text("x" * 1_000_000)) == 1_000
