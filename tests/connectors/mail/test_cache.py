"""The mail cache: exact round trips, filters, a search index that user words cannot break,
and files of older schemas brought up to date without losing or misreading anything."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.folders import FolderState
from hearth.connectors.mail.objects import Address, Attachment, Concern, Envelope, ParsedBody
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.search_text import SearchHeaders, fold

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


def headers(envelope: Envelope, day: str = "2026-11-02") -> SearchHeaders:
    """What the sync would index of `envelope` (as Dovecot writes the addresses)."""

    def written(addresses: tuple[Address, ...]) -> str:
        return ", ".join(f"{a.name} <{a.email}>" if a.name else f"<{a.email}>" for a in addresses)

    sender = (envelope.sender,) if envelope.sender else ()
    return SearchHeaders(
        sender=fold(written(sender)),
        recipients=fold(f"{written(envelope.to)}\n{written(envelope.cc)}"),
        subject=fold(envelope.subject),
        received_day=day,
    )


def index(cache: MailCache, *envelopes: Envelope, day: str = "2026-11-02") -> None:
    cache.put_listed((envelope, headers(envelope, day)) for envelope in envelopes)


def search(cache: MailCache, words: str = "", folder: str = "INBOX", **asked: object) -> set[int]:
    query = MailQuery.of(words, **asked)  # type: ignore[arg-type]
    return {e.uid for e in cache.search(query, folder, limit=1000)}


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
    index(cache, envelope(1), envelope(2), envelope(5))
    cache.put_body("INBOX", 2, ParsedBody("kiwi"))
    cache.put_body_texts("INBOX", {2: fold("kiwi")})
    assert search(cache, "kiwi") == {2}
    assert cache.folder_state("INBOX") == (7, 5)
    cache.remove("INBOX", [2, 5])
    assert cache.uids("INBOX") == {1}
    assert cache.body("INBOX", 2) is None
    assert search(cache, "kiwi") == set()
    assert cache.folder_state("INBOX") == (7, 5)  # removed UIDs are not fetched again

    index(cache, envelope(8, subject="mango"))
    cache.reset_folder("INBOX", 9)
    assert cache.folder_state("INBOX") == (9, 0)
    assert cache.uids("INBOX") == set()
    assert search(cache, "mango") == set()


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


def test_search_finds_substrings_of_people_subject_and_body(cache: MailCache) -> None:
    cache.reset_folder("Archive", 1)
    index(
        cache,
        envelope(1, subject="Quarterly invoice"),
        envelope(2, subject="Lunch", cc=(Address("Zoë Zimmer", "zoe@example.net"),)),
        envelope(3, folder="Archive", subject="Old invoice"),
    )
    cache.put_body_texts("INBOX", {1: fold("Due on Friday"), 2: fold("the pineapple pizza")})
    cache.put_body_texts("Archive", {3: fold("")})
    assert search(cache, "invoice") == {1}
    assert search(cache, "INVOICE", folder="Archive") == {3}
    assert search(cache, "pineapple") == {2}
    assert search(cache, "zoe") == {2}  # Zoë: a mark after the E, as Dovecot has it
    assert search(cache, "uarter") == {1}  # substrings, anywhere in a word
    assert search(cache, "baker lunch") == {2}  # every word, each in any of the fields
    assert search(cache, "zimmer@") == set()  # Dovecot writes "Zoë Zimmer <zoe@…>"
    assert search(cache, "<zoe@example.net>") == {2}
    assert search(cache, "Fr") == {1}  # shorter than a trigram: found by a scan
    assert search(cache, "a", sender="ba") == {1, 2}
    assert search(cache, sender="zoe") == set()  # Zoë is a recipient, not the sender
    # Re-putting an envelope (a flag change) keeps its index.
    cache.put_envelopes([envelope(2, subject="Lunch", flags=("\\Seen",))])
    assert search(cache, "pineapple") == {2}


def test_search_decides_only_what_the_index_holds(cache: MailCache) -> None:
    index(cache, envelope(1, subject="plan"), day="2026-11-01")
    index(cache, envelope(2, subject="plan"), day="2026-11-03")
    cache.put_envelopes([envelope(3, subject="plan")])  # cached, headers not indexed
    cache.put_body_texts("INBOX", {2: fold("body"), 3: fold("body")})
    assert search(cache, "plan") == {2}  # 1's body, which might hold the word, is unknown
    assert search(cache, sender="bob") == {1, 2}
    assert search(cache, since=date(2026, 11, 2)) == {2}  # by the day of INTERNALDATE
    assert search(cache, since=date(2026, 11, 3)) == {2}
    assert search(cache, "", unread=True) == {1, 2}
    assert {e.uid for e in cache.search(MailQuery.of(), "INBOX", below=2)} == {1}

    assert cache.coverage("INBOX", MailQuery.of()) is None  # never synced to the end
    cache.remember_state("INBOX", FolderState(7, 4, 3), synced_at=1000.0)
    words, headers_only = (cache.coverage("INBOX", MailQuery.of(w)) for w in ("plan", ""))
    assert words is not None and headers_only is not None
    assert (words.uidnext, words.synced_at, words.unknown) == (4, 1000.0, (1, 3))
    assert headers_only.unknown == (3,)
    assert cache.pending("INBOX") == ([3], {1: 101})


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
        "?",
    ],
)
def test_search_takes_fts_syntax_as_plain_words(cache: MailCache, words: str) -> None:
    index(cache, envelope(1, subject="invoice NEAR the OR gate"))
    assert search(cache, words) <= {1}  # never raises
    assert search(cache, sender=words) <= {1}
    assert cache.uids("INBOX") == {1}


def test_fts_operators_are_words_not_syntax(cache: MailCache) -> None:
    index(cache, envelope(1, subject="apples"), envelope(2, subject="x-pears"))
    assert search(cache, "apples OR pears") == set()  # OR is a word here, and neither has it
    assert search(cache, "-pears", sender="") == set()  # bodies not indexed: undecided
    assert search(cache, sender="bob") == {1, 2}
    cache.put_body_texts("INBOX", {1: "", 2: ""})
    assert search(cache, "-pears") == {2}
    assert search(cache, "NEAR(apples") == set()


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


def test_a_file_of_an_unknown_schema_version_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "mail.sqlite"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE messages (junk TEXT)")
        old.execute("PRAGMA user_version = 99")
    cache = MailCache(path)
    cache.reset_folder("INBOX", 1)
    cache.put_envelopes([envelope(1)])
    assert cache.uids("INBOX") == {1}
    cache.close()
