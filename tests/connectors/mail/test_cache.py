"""The mail cache: exact round trips, filters, FTS search that user words cannot break."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.objects import Address, Attachment, Concern, Envelope, ParsedBody

BOB = Address("Bob Baker", "bob@example.com")
ANN = Address("Ann", "ann@example.org")


def envelope(uid: int, folder: str = "INBOX", **changes: object) -> Envelope:
    values: dict[str, object] = {
        "folder": folder,
        "uid": uid,
        "message_id": f"<m{uid}@example.com>",
        "subject": f"Subject {uid}",
        "sender": BOB,
        "to": (ANN,),
        "date": datetime(2026, 11, 1, 9, 0, tzinfo=UTC) + timedelta(days=uid),
        "flags": (),
        "size": 100 + uid,
    }
    values.update(changes)
    return Envelope(**values)  # type: ignore[arg-type]


@pytest.fixture
def cache(tmp_path: Path) -> MailCache:
    cache = MailCache(tmp_path / "mail.sqlite")
    cache.reset_folder("INBOX", 7)
    return cache


def test_envelopes_and_bodies_round_trip_exactly(cache: MailCache) -> None:
    full = Envelope(
        folder="INBOX",
        uid=3,
        message_id="<x@y>",
        subject="Grüße — über alles",
        sender=Address("", "a@b.example"),
        reply_to=(Address("Eve", "eve@evil.example"),),
        to=(ANN, Address("Carl, Jr.", "carl@example.net")),
        cc=(BOB,),
        date=datetime(2026, 3, 1, 8, 30, tzinfo=timezone(timedelta(hours=-5))),
        flags=("\\Seen", "$Forwarded"),
        size=4242,
        in_reply_to="<p@y>",
        references="<o@y> <p@y>",
    )
    bare = Envelope(folder="INBOX", uid=4, message_id="", subject="", sender=None)
    cache.put_envelopes([full, bare])
    assert cache.envelope("INBOX", 3) == full
    assert cache.envelope("INBOX", 3).date.utcoffset() == timedelta(hours=-5)  # type: ignore[union-attr]
    assert cache.envelope("INBOX", 4) == bare
    assert cache.envelope("INBOX", 5) is None

    body = ParsedBody(
        text="Hello\nthere",
        attachments=(Attachment("a.pdf", "application/pdf", 12),),
        concerns=(Concern("hidden_text", "3 hidden characters"),),
        hidden_chars=3,
    )
    cache.put_body("INBOX", 3, body)
    assert cache.body("INBOX", 3) == body
    assert cache.body("INBOX", 4) is None


def test_folder_state_remove_and_reset(cache: MailCache) -> None:
    assert cache.folder_state("Sent") is None
    cache.put_envelopes([envelope(1), envelope(2), envelope(5)])
    cache.put_body("INBOX", 2, ParsedBody("kiwi"))
    assert cache.folder_state("INBOX") == (7, 5)
    cache.remove("INBOX", [2, 5])
    assert cache.uids("INBOX") == {1}
    assert cache.body("INBOX", 2) is None
    assert cache.search("kiwi") == []
    assert cache.folder_state("INBOX") == (7, 5)  # removed UIDs are not fetched again

    cache.put_envelopes([envelope(8, subject="mango")])
    cache.reset_folder("INBOX", 9)
    assert cache.folder_state("INBOX") == (9, 0)
    assert cache.uids("INBOX") == set()
    assert cache.search("mango") == []


def test_listing_filters_newest_first(cache: MailCache) -> None:
    cache.put_envelopes(
        [
            envelope(1, flags=("\\Seen",)),
            envelope(2, sender=Address("Carol", "carol@example.net")),
            envelope(3, flags=("\\Flagged",)),
        ]
    )
    assert [e.uid for e in cache.envelopes("INBOX")] == [3, 2, 1]
    assert [e.uid for e in cache.envelopes("INBOX", unread=True)] == [3, 2]
    assert [e.uid for e in cache.envelopes("INBOX", since=date(2026, 11, 3))] == [3, 2]
    assert [e.uid for e in cache.envelopes("INBOX", sender="CAROL")] == [2]
    assert [e.uid for e in cache.envelopes("INBOX", sender="baker")] == [3, 1]
    assert [e.uid for e in cache.envelopes("INBOX", limit=1)] == [3]
    cache.update_flags("INBOX", {3: ("\\Seen",)})
    assert cache.envelope("INBOX", 3).flags == ("\\Seen",)  # type: ignore[union-attr]
    assert cache.flags("INBOX") == {1: ("\\Seen",), 2: (), 3: ("\\Seen",)}


def test_search_finds_subject_people_and_read_text(cache: MailCache) -> None:
    cache.reset_folder("Archive", 1)
    cache.put_envelopes(
        [
            envelope(1, subject="Quarterly invoice"),
            envelope(2, subject="Lunch", to=(Address("Zoë Zimmer", "zoe@example.net"),)),
            envelope(3, folder="Archive", subject="Old invoice"),
        ]
    )
    cache.put_body("INBOX", 2, ParsedBody("the pineapple pizza"))
    assert {e.uid for e in cache.search("invoice")} == {1, 3}
    assert [e.uid for e in cache.search("invoice", folder="Archive")] == [3]
    assert [e.uid for e in cache.search("pineapple")] == [2]
    assert [e.uid for e in cache.search("zoe")] == [2]  # diacritics folded
    assert [e.uid for e in cache.search("Quarter")] == [1]  # words match as prefixes
    assert [e.uid for e in cache.search("baker lunch")] == [2]  # every word must match
    # Re-putting an envelope (a flag change) keeps the body in the index.
    cache.put_envelopes([envelope(2, subject="Lunch", flags=("\\Seen",))])
    assert [e.uid for e in cache.search("pineapple")] == [2]


@pytest.mark.parametrize(
    "words",
    [
        '"',
        'in"voice',
        "invoice OR",
        "NEAR(a b)",
        "subject:x",
        "*",
        "a*",
        "(",
        "-invoice",
        "^invoice",
        "invoice AND NOT",
        "'; DROP TABLE messages; --",
        "",
        "   ",
        "{sender}: x",
    ],
)
def test_search_takes_fts_syntax_as_plain_words(cache: MailCache, words: str) -> None:
    cache.put_envelopes([envelope(1, subject="invoice NEAR the OR gate")])
    found = cache.search(words)  # never raises
    assert all(e.uid == 1 for e in found)
    assert cache.uids("INBOX") == {1}


def test_fts_operators_are_words_not_syntax(cache: MailCache) -> None:
    cache.put_envelopes([envelope(1, subject="apples"), envelope(2, subject="pears")])
    assert cache.search("apples OR pears") == []  # OR is a word here, and neither has it
    assert [e.uid for e in cache.search("-pears")] == [2]


def test_known_addresses_are_the_people_written_to(cache: MailCache) -> None:
    cache.reset_folder("Sent", 3, special_use="\\Sent")
    cache.put_envelopes(
        [
            envelope(
                1,
                folder="Sent",
                sender=ANN,
                to=(Address("X", "Xavier@Example.com"),),
                cc=(Address("", "yve@example.org"),),
            ),
            envelope(2, folder="INBOX", sender=BOB, to=(Address("", "stranger@example.com"),)),
        ]
    )
    assert cache.known_addresses() == {"xavier@example.com", "yve@example.org"}


def test_a_file_of_another_schema_version_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "mail.sqlite"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE messages (junk TEXT)")
        old.execute("PRAGMA user_version = 99")
    cache = MailCache(path)
    cache.reset_folder("INBOX", 1)
    cache.put_envelopes([envelope(1)])
    assert cache.uids("INBOX") == {1}
    cache.close()
