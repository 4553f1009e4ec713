"""Concerns about a message: deceptive senders and hidden text, each with a case that must pass."""

from __future__ import annotations

import pytest

from hearth.connectors.mail.concerns import hidden_concern, message_concerns, sender_concerns
from hearth.connectors.mail.objects import Address

KNOWN = ("paypal.com", "alice@example.com", "amazon.com", "bank.example.org")


def kinds(sender: Address | None, reply_to: tuple[Address, ...] = ()) -> list[str]:
    return [concern.kind for concern in sender_concerns(sender, reply_to, KNOWN)]


def test_hidden_concern_counts_and_is_absent_when_nothing_was_hidden() -> None:
    concern = hidden_concern(42)

    assert concern is not None and concern.kind == "hidden_text"
    assert "hidden text removed" in concern.text and "42" in concern.text
    assert hidden_concern(0) is None


def test_reply_to_elsewhere_names_the_real_reply_address() -> None:
    (concern,) = sender_concerns(
        Address("Bob", "bob@example.com"), [Address("", "x@evil.test")], ()
    )

    assert concern.kind == "reply_to_differs"
    assert "x@evil.test" in concern.text and "bob@example.com" in concern.text


def test_reply_to_same_address_in_other_case_is_fine() -> None:
    assert kinds(Address("Bob", "bob@example.com"), (Address("B", "BOB@Example.com"),)) == []


@pytest.mark.parametrize(
    "name",
    [
        "alice@example.org",
        "Alice (alice@example.com)",
        "paypal.com support",
        "Amazon.com.au Orders",
    ],
)
def test_address_in_display_name_that_is_not_the_sender(name: str) -> None:
    (concern,) = sender_concerns(Address(name, "bob@evil.test"), [], ())

    assert concern.kind == "name_has_address"
    assert "bob@evil.test" in concern.text


@pytest.mark.parametrize(
    ("name", "email"),
    [
        ("bob@evil.test", "BOB@evil.test"),
        ("Amazon.com", "orders@amazon.com"),
        ("PayPal", "service@mail.paypal.com"),
        ("Dr. J.R.R. Tolkien", "jrr@example.org"),
        ("node.js team", "team@example.org"),
        ("", "bob@example.org"),
    ],
)
def test_honest_display_names_are_fine(name: str, email: str) -> None:
    assert sender_concerns(Address(name, email), [], ()) == ()


@pytest.mark.parametrize(
    ("email", "imitated"),
    [
        ("service@p\u0430ypal.com", "paypal.com"),  # Cyrillic a
        ("service@xn--pypal-4ve.com", "paypal.com"),  # the same, as punycode
        ("alice@examp1e.com", "example.com"),  # digit one for l
        ("orders@arnazon.com", "amazon.com"),  # rn for m
        ("orders@AMAZ0N.com", "amazon.com"),  # zero for o
        ("alerts@bank.examp\u04cfe.org", "bank.example.org"),  # Cyrillic palochka
        ("x@secure.paypa1.com", "paypal.com"),
    ],
)
def test_lookalike_of_a_known_domain_is_flagged(email: str, imitated: str) -> None:
    (concern,) = sender_concerns(Address("", email), [], KNOWN)

    assert concern.kind == "lookalike_sender"
    assert imitated in concern.text
    assert concern.text.isascii()  # the card shows punycode, which the lookalike cannot disguise


def test_mixed_script_domain_is_flagged_without_known_contacts() -> None:
    assert [c.kind for c in sender_concerns(Address("", "x@g\u043e\u043egle.com"), [], ())] == [
        "lookalike_sender"
    ]


@pytest.mark.parametrize(
    "email",
    [
        "someone@paypal.com",
        "a@mail.paypal.com",
        "alice@example.com",
        "bob@example.com",
        "x@unrelated.org",
        "x@b\u00fccher.de",
    ],
)
def test_known_or_unrelated_senders_are_not_lookalikes(email: str) -> None:
    assert kinds(Address("", email)) == []


def test_no_sender_at_all() -> None:
    assert kinds(None) == []
    assert kinds(None, (Address("", "x@evil.test"),)) == ["reply_to_differs"]


def test_message_concerns_come_in_order() -> None:
    concerns = message_concerns(
        Address("paypal.com", "service@p\u0430ypal.com"), [Address("", "x@evil.test")], KNOWN, 12
    )

    assert [c.kind for c in concerns] == [
        "lookalike_sender",
        "reply_to_differs",
        "name_has_address",
        "hidden_text",
    ]
    assert message_concerns(Address("", "alice@example.com"), [], KNOWN, 0) == ()
