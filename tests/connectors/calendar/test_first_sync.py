"""A large calendar's first sync: a batch at a time, listable meanwhile, resumed if cut short.

A real Radicale holds 130 events behind a real loopback proxy, which lets one batch of events
(one calendar-multiget) through and then answers 502, as a gateway whose server went away in
the middle of the sync. Batches are made 50 events long here, so the calendar takes three.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pydantic import SecretStr

from hearth import SettingsStore
from hearth.connectors.calendar import sync
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.expand import occurrences
from hearth.connectors.calendar.library import SYNCING, CalendarLibrary
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.connectors.calendar.kit import BERLIN, NOW, TODAY, event_ics, server_calendar
from tests.connectors.calendar.recording_proxy import RecordingProxy
from tests.connectors.calendar.test_tools import run

EVENTS = 130
BATCH = 50
FIRST_DAY = datetime(2026, 10, 1, tzinfo=BERLIN)


@pytest.fixture
def proxy(radicale: RadicaleServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingProxy]:
    """Radicale with EVENTS events in 'Work' (three a day from 1 October), behind the proxy."""
    monkeypatch.setattr(sync, "BATCH", BATCH)
    collection = urlsplit(str(server_calendar(radicale, "Work").url)).path.strip("/")
    folder = radicale.folder / "collections" / "collection-root" / collection
    for number in range(EVENTS):  # as files in its storage, as a long-used server has them
        start = FIRST_DAY + timedelta(days=number // 3, hours=9 + 2 * (number % 3))
        times = [f"{moment:%Y%m%dT%H%M%S}" for moment in (start, start + timedelta(hours=1))]
        text = event_ics(f"e-{number:03d}", f"Event {number}", *times)
        (folder / f"e-{number:03d}.ics").write_text(text, newline="")
    with RecordingProxy(radicale.port) as proxy:
        yield proxy


@pytest.fixture
def connector(tmp_path: Path, proxy: RecordingProxy, secure_keyring: object) -> CalendarConnector:
    store = SettingsStore(tmp_path / "connectors")
    settings = CalendarSettings(
        server=proxy.url, username=USER, password=SecretStr(PASSWORD), time_zone=BERLIN.key
    )
    store.save("calendar", settings)
    library = CalendarLibrary(
        store, tmp_path / "cache.sqlite", today=lambda: TODAY, now=lambda: NOW
    )
    return CalendarConnector(library, ChangeLog(tmp_path / "changes.sqlite"))


def everything(library: CalendarLibrary) -> tuple[int, list[str]]:
    """How many occurrences the whole span lists, and what it says of the sync."""
    found, problems = library.occurrences(FIRST_DAY, FIRST_DAY + timedelta(days=200))
    return len(found), [p.message for p in problems if p.component == SYNCING]


def test_a_first_sync_cut_short_lists_what_it_has_and_resumes(
    proxy: RecordingProxy, connector: CalendarConnector
) -> None:
    library = connector.library
    proxy.multigets_allowed = 1

    [state] = library.refresh()

    assert not state.online and "502" in str(state.error)
    assert state.progress == (BATCH, EVENTS)
    count, syncing = everything(library)
    assert count == BATCH
    assert syncing == [f"still syncing: {BATCH} of {EVENTS} events read so far, so events not "
                       "read yet are missing; ask again later"]  # fmt: skip
    listed = run(connector, "list_events", start="2026-10-01", end="2027-03-31")
    assert f"Work is still syncing: {BATCH} of {EVENTS} events read so far" in listed["note"]
    assert f"syncing: {BATCH} of {EVENTS} events read" in (connector.status_line() or "")

    proxy.multigets_allowed = None
    cut_short_at = proxy.multigets
    [state] = library.refresh()

    assert state.online and state.progress is None and state.synced_at is not None
    assert proxy.multigets - cut_short_at == 2  # only the 80 still missing, in two batches
    assert everything(library) == (EVENTS, [])
    assert "syncing" not in (connector.status_line() or "")
    begin, end = FIRST_DAY, FIRST_DAY + timedelta(days=200)
    objects = [(obj.calendar, obj.ics) for obj in library.store.objects()]
    assert library.store.occurrences(begin, end, BERLIN) == occurrences(objects, begin, end, BERLIN)
