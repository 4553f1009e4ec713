"""CalendarStore against a real Radicale server that goes away and comes back.

Another client (the `caldav` library, logged in as the same user) changes events meanwhile, so
the sync tokens, the queued preconditions and the conflicts are all checked by the server.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

import caldav
import pytest

from hearth.connectors.calendar.caldav_source import CalDavSource
from hearth.connectors.calendar.caldav_sync import Listing
from hearth.connectors.calendar.errors import Conflict
from hearth.connectors.calendar.objects import CalendarRef, Problem, StoredObject
from hearth.connectors.calendar.store import CalendarStore
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.connectors.calendar.test_store import event, summaries


class RecordingSource(CalDavSource):
    """The real CalDAV source, noting what each sync listed and fetched."""

    def __init__(self, url: str) -> None:
        super().__init__(url, USER, PASSWORD, timeout_s=5.0)
        self.synced: list[tuple[str | None, Listing]] = []
        self.fetched: list[StoredObject] = []

    def listing(
        self, calendar: CalendarRef, token: str | None, known: Mapping[str, str] | None = None
    ) -> Listing:
        found = super().listing(calendar, token, known)
        self.synced.append((token, found))
        return found

    def fetch(
        self, calendar: CalendarRef, hrefs: list[str]
    ) -> tuple[list[StoredObject], list[Problem], list[str]]:
        found = super().fetch(calendar, hrefs)
        self.fetched.extend(found[0])
        return found


class OtherClient:
    """Someone else's calendar app, writing to the same account."""

    def __init__(self, server: RadicaleServer) -> None:
        self.client = caldav.DAVClient(url=server.url, username=USER, password=PASSWORD)
        self.calendar = self.client.principal().make_calendar(name="Work", cal_id="work")

    def save(self, uid: str, summary: str) -> None:
        try:
            found = self.calendar.event_by_uid(uid)
        except caldav.lib.error.NotFoundError:
            self.calendar.save_event(event(uid, summary))
            return
        found.data = event(uid, summary)
        found.save()

    def delete(self, uid: str) -> None:
        self.calendar.event_by_uid(uid).delete()

    def summary(self, uid: str) -> str | None:
        try:
            text = str(self.calendar.event_by_uid(uid).data)
        except caldav.lib.error.NotFoundError:
            return None
        return next(line for line in text.splitlines() if line.startswith("SUMMARY:"))[8:]


@pytest.fixture
def other(radicale: RadicaleServer) -> Iterator[OtherClient]:
    client = OtherClient(radicale)
    for uid, summary in (("standup", "Standup"), ("review", "Review"), ("lunch", "Lunch")):
        client.save(uid, summary)
    yield client
    client.client.close()


@pytest.fixture
def source(radicale: RadicaleServer) -> RecordingSource:
    return RecordingSource(radicale.url)


def open_store(tmp_path: Path, source: CalDavSource) -> CalendarStore:
    return CalendarStore(tmp_path / "cache.sqlite3", lambda: [source])


def test_the_cache_is_read_while_the_server_is_down(
    tmp_path: Path, radicale: RadicaleServer, other: OtherClient, source: RecordingSource
) -> None:
    store = open_store(tmp_path, source)
    [state] = store.refresh()
    assert (state.calendar, state.online, state.error) == ("Work", True, None)
    radicale.stop()

    [state] = store.refresh()
    assert not state.online
    assert state.error
    assert state.synced_at is not None
    assert [ref.name for ref in store.calendars()] == ["Work"]
    assert summaries(store, "work") == {"lunch": "Lunch", "review": "Review", "standup": "Standup"}
    store.close()
    reopened = open_store(tmp_path, CalDavSource(radicale.url, USER, PASSWORD, timeout_s=5.0))
    assert set(summaries(reopened)) == {"lunch", "review", "standup"}


def test_a_refresh_fetches_only_what_changed_since_its_sync_token(
    tmp_path: Path, other: OtherClient, source: RecordingSource
) -> None:
    store = open_store(tmp_path, source)
    store.refresh()
    [(first_token, first)] = source.synced
    assert first_token is None
    assert first.full
    assert len(first.fetch) == 3

    other.save("review", "Review (moved)")
    other.delete("lunch")
    source.fetched.clear()
    store.refresh()
    token, changes = source.synced[-1]
    assert token == first.token  # the stored token was sent back
    assert not changes.full
    assert [obj.uid for obj in source.fetched] == ["review"]
    assert len(changes.deleted) == 1
    assert changes.token != first.token
    assert summaries(store) == {"review": "Review (moved)", "standup": "Standup"}


def test_changes_made_offline_are_replayed_with_their_preconditions(
    tmp_path: Path, radicale: RadicaleServer, other: OtherClient, source: RecordingSource
) -> None:
    store = open_store(tmp_path, source)
    store.refresh()
    radicale.stop()
    standup, review, lunch = (store.find(uid) for uid in ("standup", "review", "lunch"))
    edits = [
        store.put(
            "Work", "standup", event("standup", "Standup (mine)"), expected_etag=standup.etag
        ),
        store.put("work", "review", event("review", "Review (mine)"), expected_etag=review.etag),
        store.put("Work", "planning", event("planning", "Planning"), expected_etag=None),
        store.put("Work", "retro", event("retro", "Retro (mine)"), expected_etag=None),
        store.delete(lunch),
    ]
    assert all(saved.queued for saved in edits)
    # A second edit of a queued version waits behind the first.
    queued_review = store.find("review")
    assert queued_review.etag == edits[1].object.etag
    store.put(
        "Work", "review", event("review", "Review (mine, 2)"), expected_etag=queued_review.etag
    )
    # So does an edit of an event created offline; it goes through once the create has.
    agenda = event("planning", "Planning (agenda)")
    store.put("Work", "planning", agenda, expected_etag=store.find("planning").etag)
    assert summaries(store) == {
        "planning": "Planning (agenda)",
        "retro": "Retro (mine)",
        "review": "Review (mine, 2)",
        "standup": "Standup (mine)",
    }
    [state] = store.status()
    assert (state.online, state.pending, state.conflicts) == (False, 7, 0)
    store.close()

    radicale.start()
    other.save("review", "Review (theirs)")  # meanwhile, elsewhere
    other.save("retro", "Retro (theirs)")
    reopened = open_store(tmp_path, CalDavSource(radicale.url, USER, PASSWORD, timeout_s=5.0))
    assert [(c.op, c.uid) for c in reopened.pending()] == [
        ("put", "standup"),
        ("put", "review"),
        ("put", "planning"),
        ("put", "retro"),
        ("delete", "lunch"),
        ("put", "review"),
        ("put", "planning"),
    ]
    assert reopened.pending()[0].expected_etag == standup.etag
    assert reopened.pending()[2].expected_etag is None
    [state] = reopened.refresh()
    assert (state.online, state.pending, state.conflicts) == (True, 1, 2)

    assert other.summary("standup") == "Standup (mine)"
    assert other.summary("planning") == "Planning (agenda)"
    assert other.summary("lunch") is None
    assert other.summary("review") == "Review (theirs)"  # nothing overwritten
    assert other.summary("retro") == "Retro (theirs)"  # the create met an existing UID
    review_conflict, retro_conflict = reopened.conflicts()
    assert (review_conflict.uid, retro_conflict.uid) == ("review", "retro")
    assert "SUMMARY:Review (mine)" in (review_conflict.ics or "")  # the user's version is kept
    assert "SUMMARY:Retro (mine)" in (retro_conflict.ics or "")
    assert summaries(reopened)["review"] == "Review (theirs)"  # and the server's beside it
    assert summaries(reopened)["retro"] == "Retro (theirs)"
    [behind] = reopened.pending()
    assert "Review (mine, 2)" in (behind.ics or "")

    # Dropping the conflicting change does not let the one behind it overwrite theirs either.
    reopened.discard(review_conflict.id)
    reopened.replay()
    assert other.summary("review") == "Review (theirs)"
    assert [c.uid for c in reopened.conflicts()] == ["retro", "review"]
    assert reopened.pending() == []

    # Writing on the server's version resolves a conflict; the queued version stays until dropped.
    merged = event("retro", "Retro (merged)")
    saved = reopened.put("Work", "retro", merged, expected_etag=reopened.find("retro").etag)
    assert not saved.queued
    assert other.summary("retro") == "Retro (merged)"
    assert "Retro (mine)" in (reopened.conflicts()[0].ics or "")


def test_a_write_that_meets_another_clients_change_is_refused_and_read_again(
    tmp_path: Path, other: OtherClient, source: RecordingSource
) -> None:
    store = open_store(tmp_path, source)
    store.refresh()
    stale = store.find("standup")
    other.save("standup", "Standup (theirs)")
    with pytest.raises(Conflict):
        store.put("Work", "standup", event("standup", "Mine"), expected_etag=stale.etag)
    assert other.summary("standup") == "Standup (theirs)"
    assert summaries(store)["standup"] == "Standup (theirs)"
    saved = store.put(
        "Work", "standup", event("standup", "Mine"), expected_etag=store.find("standup").etag
    )
    assert not saved.queued
    assert other.summary("standup") == "Mine"


def test_a_damaged_cache_keeps_its_queued_changes(
    tmp_path: Path, radicale: RadicaleServer, other: OtherClient, source: RecordingSource
) -> None:
    store = open_store(tmp_path, source)
    store.refresh()
    radicale.stop()
    standup = store.find("standup")
    store.put("Work", "standup", event("standup", "Standup (mine)"), expected_etag=standup.etag)
    store.close()
    _spoil_table(tmp_path / "cache.sqlite3", "objects")

    radicale.start()
    reopened = open_store(tmp_path, CalDavSource(radicale.url, USER, PASSWORD, timeout_s=5.0))
    [problem] = reopened.problems()
    assert "1 open queued change(s) were kept" in problem.message
    assert [c.uid for c in reopened.pending()] == ["standup"]
    reopened.refresh()
    assert reopened.pending() == []
    assert other.summary("standup") == "Standup (mine)"
    assert summaries(reopened)["standup"] == "Standup (mine)"


def _spoil_table(path: Path, table: str) -> None:
    """Overwrite the root page of one table with noise, leaving the other tables readable."""
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        [root] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,))
    conn.close()
    with path.open("r+b") as file:
        file.seek((root[0] - 1) * page_size)
        file.write(bytes(range(256)) * (page_size // 256))
