"""The calendar connector's state: settings, sources, the offline store and its sync thread.

One `CalendarLibrary` per connector. Sources are rebuilt from the settings when they change, so
an account added on the Accounts page is used at the next refresh without a restart.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import tzlocal

from hearth import (
    Every,
    HearthError,
    SecretStorageUnavailable,
    SettingsStore,
    counted,
    data_dir,
)
from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.locked import LockedAccount
from hearth.connectors.calendar.objects import CalendarSource, Occurrence, Problem
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.calendar.store import CalendarStore, SyncState

if TYPE_CHECKING:
    from hearth.connectors.calendar.caldav_source import CalDavSource

NAME = "calendar"
CACHE_FILE = Path("calendar") / "cache.sqlite"
SYNCING = "sync"  # the component of a problem saying a calendar is not all in yet
log = logging.getLogger(__name__)


class CalendarLibrary:
    """Where the calendar tools find calendars, events and the user's zone and hours."""

    def __init__(
        self,
        settings_store: SettingsStore | None = None,
        cache_path: Path | None = None,
        *,
        today: Callable[[], date] = date.today,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings_store = settings_store or SettingsStore()
        self.today = today
        self._now = now
        # One file source for the library's life: it keeps each file as last parsed.
        self._files = IcsFileSource(
            lambda: [Path(path) for path in self.public_settings().ics_files]
        )
        self.store = CalendarStore(cache_path or data_dir() / CACHE_FILE, self.sources)
        self._lock = threading.Lock()
        self._secret_problem: str | None = None
        self._caldav: tuple[str, CalDavSource] | None = None
        self._sync = Every(
            "calendar sync", self.store.refresh, lambda: self.public_settings().sync_minutes
        )

    def settings(self) -> CalendarSettings:
        """The saved settings; when the password cannot be read, they come without it (so the
        CalDAV account is left out) and `account_problem` says why."""
        try:
            settings = self.settings_store.load(NAME, CalendarSettings)
        except SecretStorageUnavailable as error:
            self._secret_problem = str(error)
            return self.public_settings()
        except HearthError as error:
            log.warning("calendar settings could not be read: %s", error)
            return CalendarSettings()
        self._secret_problem = None
        return settings

    def public_settings(self) -> CalendarSettings:
        """The settings without the password: no secret is read, nor a locked store opened."""
        try:
            return self.settings_store.load(NAME, CalendarSettings, with_secrets=False)
        except HearthError as error:
            log.warning("calendar settings could not be read: %s", error)
            return CalendarSettings()

    def use_password_for_session(self, password: str) -> None:
        """A password kept in memory only, for this session, whatever is stored."""
        if password:
            self.settings_store.hold(NAME, {"password": password})

    def account_problem(self) -> str | None:
        """Why the CalDAV account set up is not used now (its password is not known), or None."""
        settings = self.settings()
        if not (settings.server and settings.username) or settings.password is not None:
            return None
        why = self._secret_problem or "it is not stored"
        return (
            f"the CalDAV password for {settings.username} is not known this session ({why}): "
            "enter it under Accounts → Calendar, or run `hearth calendar --ask-password sync` "
            "in a terminal"
        )

    def save(self, settings: CalendarSettings) -> None:
        self.settings_store.save(NAME, settings)

    def zone(self) -> ZoneInfo:
        name = self.public_settings().time_zone or tzlocal.get_localzone_name() or "UTC"
        return ZoneInfo(name)

    def now(self) -> datetime:
        return self._now() if self._now is not None else datetime.now(self.zone())

    def sources(self) -> Sequence[CalendarSource]:
        """The ICS files granted, and the CalDAV account when it is complete."""
        settings = self.settings()
        found: list[CalendarSource] = [self._files]
        account = self._account(settings)
        if account is not None:
            found.append(account)
        elif (problem := self.account_problem()) is not None:
            found.append(LockedAccount(problem[0].upper() + problem[1:]))
        return found

    def _account(self, settings: CalendarSettings) -> CalDavSource | None:
        if not (settings.server and settings.username and settings.password):
            return None
        # caldav and its HTTP stack take a third of a second to import; only an account needs them.
        from hearth.connectors.calendar.caldav_source import CalDavSource

        password, pinned = settings.password.get_secret_value(), settings.trusted_certificate
        key = hashlib.sha256(
            "\0".join((settings.server, settings.username, password, pinned)).encode()
        ).hexdigest()
        with self._lock:
            if self._caldav is None or self._caldav[0] != key:
                source = CalDavSource(settings.server, settings.username, password, pinned=pinned)
                self._caldav = (key, source)
            return self._caldav[1]

    def occurrences(
        self, start: datetime, end: datetime, calendar: str | None = None
    ) -> tuple[list[Occurrence], list[Problem]]:
        """Every occurrence in [start, end), from the offline store, in the user's zone.

        The problems are what was left out: parts of the calendars that could not be read when
        last synced, calendars that could not be read at all just now, calendars whose sync has
        not brought in every event yet, and what expansion cut.
        """
        if calendar is not None:
            calendar = self.store.calendar(calendar).name
        found, cut = self.store.occurrences(start, end, self.zone(), calendar)
        return found, [*self.unread(calendar), *self.syncing(calendar), *cut]

    def unread(self, calendar: str | None = None) -> list[Problem]:
        """What could not be read of every calendar (or the one named) when last synced."""
        unreadable = [
            Problem(state.calendar, None, "whole calendar", str(state.error))
            for state in self.store.status()
            if state.kind == "ics" and not state.online and state.error
            if calendar is None or state.calendar == calendar
        ]
        return unreadable + self.store.problems(calendar)

    def syncing(self, calendar: str | None = None) -> list[Problem]:
        """Each calendar (or the one named) whose sync has not brought in every event yet."""
        return [
            Problem(state.calendar, None, SYNCING, _still_syncing(*state.progress))
            for state in self.store.status()
            if state.progress is not None
            if calendar is None or state.calendar == calendar
        ]

    def add_file(self, path: Path) -> list[str]:
        """Grant an .ics file or a folder of them; returns the calendars it holds."""
        real = path.expanduser().resolve()
        if not real.exists():
            raise CalendarError(f"{path} does not exist")
        if real.is_file() and real.suffix.lower() != ".ics":
            raise CalendarError(f"{path} is not an .ics calendar file")
        settings = self.public_settings()
        if str(real) not in settings.ics_files:
            self.save(settings.model_copy(update={"ics_files": [*settings.ics_files, str(real)]}))
        self.store.refresh()
        return [
            calendar.name
            for calendar in self.store.calendars()
            if calendar.source == "ics" and Path(calendar.location).is_relative_to(real)
        ]

    def remove_file(self, path: Path) -> None:
        real = str(path.expanduser().resolve())
        settings = self.public_settings()
        kept = [item for item in settings.ics_files if item != real]
        if len(kept) == len(settings.ics_files):
            raise CalendarError(f"{path} was not added")
        self.save(settings.model_copy(update={"ics_files": kept}))
        self.store.refresh()

    def missing_files(self) -> list[str]:
        """Granted calendar files or folders that are not there now."""
        return [path for path in self.public_settings().ics_files if not Path(path).exists()]

    def refresh(self) -> list[SyncState]:
        return self.store.refresh()

    def start(self) -> None:
        """Sync now and then every `sync_minutes`, off the caller's thread."""
        self._sync.start()

    def sync_soon(self) -> None:
        """Sync as soon as the background job is free (new settings), if it runs at all."""
        self._sync.now()

    def stop(self) -> None:
        self._sync.stop()


def _still_syncing(done: int, total: int) -> str:
    if not total:
        return "still syncing: its events are not read yet, so they are missing; ask again later"
    return (
        f"still syncing: {done:,} of {counted(total, 'event')} read so far, so events not "
        "read yet are missing; ask again later"
    )
