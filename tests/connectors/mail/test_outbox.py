"""The outbox: intent recorded before SMTP, only safe moves, a crash mid-send never resent."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from hearth.connectors.mail.outbox import IllegalTransition, Outbox, OutboxState

RAW = b"Message-ID: <a@example.org>\r\nSubject: Hi\r\n\r\nHello\r\n"


@pytest.fixture
def outbox(tmp_path: Path) -> Outbox:
    return Outbox(tmp_path / "mail" / "outbox.sqlite3")


def _add(outbox: Outbox, message_id: str = "<a@example.org>", **kwargs: OutboxState) -> None:
    outbox.add(message_id, RAW, "ann@example.org", ["bob@example.com", "eve@x.org"], **kwargs)


def test_add_records_the_intent_with_everything_needed_to_send(outbox: Outbox) -> None:
    entry = outbox.add("<a@example.org>", RAW, "ann@example.org", ["bob@example.com"])
    assert entry.state == "sending"
    assert entry.raw == RAW
    assert entry.recipients == ("bob@example.com",)
    assert entry.sender == "ann@example.org"
    assert outbox.get("<a@example.org>") == entry
    assert outbox.get("<nope@example.org>") is None


def test_the_same_message_id_cannot_be_added_twice(outbox: Outbox) -> None:
    _add(outbox)
    with pytest.raises(IllegalTransition, match="already in the outbox"):
        _add(outbox, state="queued")


def test_a_send_goes_sending_sent_filed(outbox: Outbox) -> None:
    _add(outbox)
    assert outbox.mark("<a@example.org>", "sent").state == "sent"
    entry = outbox.mark("<a@example.org>", "filed", "copied to Sent")
    assert (entry.state, entry.detail) == ("filed", "copied to Sent")


@pytest.mark.parametrize(
    ("path", "illegal"),
    [
        (["sent"], "sending"),  # a double send
        (["sent", "filed"], "sending"),
        (["unknown"], "sent"),  # only reconcile may say it went out
        (["unknown"], "failed"),
        (["failed", "discarded"], "sending"),
        (["sent"], "unknown"),
    ],
)
def test_illegal_transitions_raise_and_change_nothing(
    outbox: Outbox, path: list[OutboxState], illegal: OutboxState
) -> None:
    _add(outbox)
    for state in path:
        outbox.mark("<a@example.org>", state, confirmed=True)
    with pytest.raises(IllegalTransition):
        outbox.mark("<a@example.org>", illegal, confirmed=True)
    entry = outbox.get("<a@example.org>")
    assert entry is not None and entry.state == path[-1]


@pytest.mark.parametrize("waiting", ["queued", "failed", "unknown"])
def test_sending_again_needs_the_users_confirmation(outbox: Outbox, waiting: OutboxState) -> None:
    _add(outbox)
    outbox.mark("<a@example.org>", waiting)
    with pytest.raises(IllegalTransition, match="confirmation"):
        outbox.mark("<a@example.org>", "sending")
    assert outbox.mark("<a@example.org>", "sending", confirmed=True).state == "sending"


def test_offline_message_waits_queued(outbox: Outbox) -> None:
    _add(outbox, state="queued")
    _add(outbox, "<b@example.org>")
    outbox.mark("<b@example.org>", "queued", "offline")
    assert [e.message_id for e in outbox.entries(["queued"])] == [
        "<a@example.org>",
        "<b@example.org>",
    ]


def test_recover_turns_a_crash_mid_send_into_unknown(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite3"
    before = Outbox(path)
    _add(before)  # intent written, then Hearth "crashes" mid-send
    _add(before, "<b@example.org>")
    before.mark("<b@example.org>", "sent")
    before.close()

    after = Outbox(path)
    recovered = after.recover()
    assert [(e.message_id, e.state) for e in recovered] == [("<a@example.org>", "unknown")]
    assert "may or may not" in recovered[0].detail
    assert after.entries(["sending"]) == []
    assert after.recover() == []
    state = {e.message_id: e.state for e in after.entries()}
    assert state == {"<a@example.org>": "unknown", "<b@example.org>": "sent"}


def test_unknown_becomes_sent_only_by_reconcile(outbox: Outbox) -> None:
    _add(outbox)
    outbox.mark("<a@example.org>", "unknown")
    entry = outbox.reconcile("<a@example.org>", "filed", "found in Sent")
    assert entry.state == "filed"
    _add(outbox, "<b@example.org>")
    with pytest.raises(IllegalTransition, match="only unknown"):
        outbox.reconcile("<b@example.org>", "sent")


def test_unknown_message_id_is_our_bug(outbox: Outbox) -> None:
    with pytest.raises(KeyError):
        outbox.mark("<ghost@example.org>", "sent")


def test_entries_filter_by_state(outbox: Outbox) -> None:
    _add(outbox)
    _add(outbox, "<b@example.org>")
    outbox.mark("<b@example.org>", "failed", "553 no such user")
    assert [e.message_id for e in outbox.entries()] == ["<a@example.org>", "<b@example.org>"]
    [failed] = outbox.entries(["failed"])
    assert failed.detail == "553 no such user"
    assert outbox.entries([]) == []


def test_file_is_wal_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite3"
    _add(Outbox(path))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    entry = Outbox(path).get("<a@example.org>")
    assert entry is not None and entry.state == "sending"


def test_racing_threads_mark_sent_once(outbox: Outbox) -> None:
    _add(outbox)
    outcomes: list[str] = []

    def finish() -> None:
        try:
            outbox.mark("<a@example.org>", "sent")
            outcomes.append("marked")
        except IllegalTransition:
            outcomes.append("refused")

    threads = [threading.Thread(target=finish) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["marked"] + ["refused"] * 7
