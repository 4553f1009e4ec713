"""Folder sync against a real Dovecot: new, changed, removed, and a UIDVALIDITY reset."""

from __future__ import annotations

from pathlib import Path

from hearth.connectors.evaluation.servers.dovecot import DovecotServer, message
from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.imap import open_imap
from hearth.connectors.mail.indexing import index_bodies
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.objects import Envelope, ParsedBody
from hearth.connectors.mail.parsing import MAX_RAW_BYTES
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.search_text import fold
from hearth.connectors.mail.sync import SyncReport, sync_all, sync_folder
from tests.connectors.mail.test_imap import settings_for


def connect(dovecot: DovecotServer) -> Mailbox:
    return Mailbox(open_imap(settings_for(dovecot), dovecot.password))


def test_sync_adds_updates_and_removes(dovecot: DovecotServer, tmp_path: Path) -> None:
    cache = MailCache(tmp_path / "mail.sqlite")
    first = dovecot.append("INBOX", message("First"))
    second = dovecot.append("INBOX", message("Second"), ["\\Seen"])
    with connect(dovecot) as mailbox:
        assert sync_folder(mailbox, cache, "INBOX") == SyncReport("INBOX", 2, 0, 0, False)
        assert {e.subject for e in cache.envelopes("INBOX")} == {"First", "Second"}
        assert sync_folder(mailbox, cache, "INBOX") == SyncReport("INBOX", 0, 0, 0, False)

        # Another client reads the first, deletes the second, and a third arrives.
        with dovecot.session() as other:
            other.select_folder("INBOX")
            other.add_flags([first], ["\\Seen", "\\Flagged"])
            other.move([second], "Trash")
        third = dovecot.append("INBOX", message("Third", body="kiwi smoothie"))

        report = sync_folder(mailbox, cache, "INBOX", batch=1)
    assert report == SyncReport("INBOX", added=1, removed=1, flags_changed=1, reset=False)
    assert cache.uids("INBOX") == {first, third}
    assert set(cache.envelope("INBOX", first).flags) == {"\\Seen", "\\Flagged"}  # type: ignore[union-attr]
    assert [e.uid for e in cache.envelopes("INBOX", unread=True)] == [third]
    assert "\\Seen" not in dovecot.flags("INBOX", third)  # syncing never marks read


def test_sync_all_records_special_uses_and_contacts(dovecot: DovecotServer, tmp_path: Path) -> None:
    cache = MailCache(tmp_path / "mail.sqlite")
    dovecot.append("Sent", message("Hi", sender=dovecot.address, to="Zed <zed@example.net>"))
    dovecot.append("INBOX", message("Spam", to="someone@example.com"))
    with connect(dovecot) as mailbox:
        reports = sync_all(mailbox, cache)
    assert {r.folder: r.added for r in reports} == {
        "INBOX": 1,
        "Sent": 1,
        "Drafts": 0,
        "Trash": 0,
        "Archive": 0,
        "Junk": 0,
    }
    assert cache.known_addresses() == {"zed@example.net"}
    assert [e.subject for e in cache.search(MailQuery.of(sender="ann@"), "Sent")] == ["Hi"]


def test_a_new_uidvalidity_drops_and_refills_the_folder(
    dovecot: DovecotServer, tmp_path: Path
) -> None:
    cache = MailCache(tmp_path / "mail.sqlite")
    for subject in ("One", "Two"):
        dovecot.append("INBOX", message(subject))
    with connect(dovecot) as mailbox:
        sync_folder(mailbox, cache, "INBOX")
    old_validity = cache.folder_state("INBOX")[0]  # type: ignore[index]
    (one,) = [e for e in cache.envelopes("INBOX") if e.subject == "One"]
    cache.put_body("INBOX", one.uid, ParsedBody("stale body"))
    cache.put_body_texts("INBOX", {one.uid: fold("stale body")})
    assert [e.uid for e in cache.search(MailQuery.of("stale"), "INBOX")] == [one.uid]

    dovecot.reset_uidvalidity("INBOX")
    with connect(dovecot) as mailbox:
        report = sync_folder(mailbox, cache, "INBOX")
    assert report.reset and report.added == 2
    state = cache.folder_state("INBOX")
    assert state is not None and state[0] != old_validity
    assert state[0] == dovecot.uidvalidity("INBOX")
    assert cache.uids("INBOX") == set(dovecot.uids("INBOX"))
    assert {e.subject for e in cache.envelopes("INBOX")} == {"One", "Two"}
    assert cache.search(MailQuery.of("stale"), "INBOX") == []
    assert all(cache.body("INBOX", uid) is None for uid in cache.uids("INBOX"))


def test_with_condstore_an_unchanged_folder_costs_one_examine_and_a_flag_change_is_seen(
    dovecot: DovecotServer, tmp_path: Path
) -> None:
    cache = MailCache(tmp_path / "mail.sqlite")
    uid = dovecot.append("INBOX", message("Only"))
    with connect(dovecot) as mailbox:
        sync_folder(mailbox, cache, "INBOX")
        assert mailbox.examine("INBOX").highestmodseq > 0
        fetched: list[object] = []
        flags = mailbox.flags
        mailbox.flags = lambda folder: fetched.append(folder) or flags(folder)  # type: ignore[method-assign]
        assert sync_folder(mailbox, cache, "INBOX") == SyncReport("INBOX", 0, 0, 0, False)
        assert fetched == []  # nothing changed: no flags were fetched
        # Another client flags it: only the flag changed (same UIDNEXT, same count).
        with dovecot.session() as other:
            other.select_folder("INBOX")
            other.add_flags([uid], ["\\Flagged"])
        assert sync_folder(mailbox, cache, "INBOX").flags_changed == 1
    assert "\\Flagged" in cache.envelope("INBOX", uid).flags  # type: ignore[union-attr]


def test_a_sync_records_how_far_the_cache_answers_and_indexes_bodies_apart(
    dovecot: DovecotServer, tmp_path: Path
) -> None:
    cache = MailCache(tmp_path / "mail.sqlite")
    words = MailQuery.of("kiwi")
    first = dovecot.append("INBOX", message("First", body="kiwi smoothie"))
    cache.reset_folder("INBOX", dovecot.uidvalidity("INBOX"))
    cache.put_envelopes([Envelope("INBOX", first, "", "First", None)])  # as mail.read leaves it
    second = dovecot.append("INBOX", message("Second", body="kiwi tart"))
    with connect(dovecot) as mailbox:
        sync_folder(mailbox, cache, "INBOX", clock=lambda: 1000.0)
        coverage = cache.coverage("INBOX", words)
        assert coverage is not None
        assert (coverage.uidnext, coverage.synced_at) == (second + 1, 1000.0)
        assert coverage.unknown == (first, second)  # headers indexed, bodies not yet
        assert cache.coverage("INBOX", MailQuery.of(sender="bob")).unknown == ()  # type: ignore[union-attr]
        assert index_bodies(mailbox, cache, "INBOX") == 2
        assert index_bodies(mailbox, cache, "INBOX") == 0
        # CONDSTORE: nothing moved, and the sync still says the cache is current now.
        assert sync_folder(mailbox, cache, "INBOX", clock=lambda: 2000.0).added == 0
    coverage = cache.coverage("INBOX", words)
    assert coverage is not None and (coverage.synced_at, coverage.unknown) == (2000.0, ())
    assert [e.uid for e in cache.search(words, "INBOX")] == [second, first]
    assert "\\Seen" not in dovecot.flags("INBOX", first)  # fetched whole, still unread


def test_a_body_too_large_to_fetch_is_left_to_the_server(
    dovecot: DovecotServer, tmp_path: Path
) -> None:
    cache = MailCache(tmp_path / "mail.sqlite")
    big = dovecot.append("INBOX", message("Big", body="kiwi " * (MAX_RAW_BYTES // 4)))
    with connect(dovecot) as mailbox:
        sync_folder(mailbox, cache, "INBOX")
        assert index_bodies(mailbox, cache, "INBOX") == 1
    coverage = cache.coverage("INBOX", MailQuery.of("kiwi"))
    assert coverage is not None and coverage.unknown == (big,)
    assert cache.pending("INBOX") == ([], {})  # not fetched again at every sync
