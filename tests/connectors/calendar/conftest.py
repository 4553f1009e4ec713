"""Fixtures for the calendar tests: a real Radicale server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from hearth import SettingsStore
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.connectors.calendar.kit import NOW, TODAY, server_calendar
from tests.connectors.servers import server_required


@pytest.fixture
def radicale(tmp_path: Path) -> Iterator[RadicaleServer]:
    """A fresh Radicale server with two users and no calendars yet."""
    with server_required():
        server = RadicaleServer(tmp_path / "radicale").start()
    yield server
    server.stop()


@pytest.fixture
def library(tmp_path: Path, secure_keyring: object) -> Iterator[CalendarLibrary]:
    """A calendar library in Europe/Berlin on Tuesday 1 December 2026, 09:00."""
    store = SettingsStore(tmp_path / "connectors")
    store.save("calendar", CalendarSettings(time_zone="Europe/Berlin"))
    library = CalendarLibrary(
        store, tmp_path / "calendar-cache.sqlite", today=lambda: TODAY, now=lambda: NOW
    )
    yield library
    library.stop()


@pytest.fixture
def account(radicale: RadicaleServer, library: CalendarLibrary) -> RadicaleServer:
    """Radicale with a Work and a Personal calendar, connected in the library's settings."""
    for name in ("Work", "Personal"):
        server_calendar(radicale, name)
    settings = library.settings().model_copy(
        update={"server": radicale.url, "username": USER, "password": SecretStr(PASSWORD)}
    )
    library.save(settings)
    library.refresh()
    return radicale


@pytest.fixture
def connector(library: CalendarLibrary, tmp_path: Path) -> Iterator[CalendarConnector]:
    connector = CalendarConnector(library, ChangeLog(tmp_path / "changes.sqlite"))
    yield connector
    connector.changes.close()
