"""The mail account's state: its settings, IMAP connections, the cache, the outbox and sync.

One `MailAccount` per connector. Every IMAP conversation opens its own connection and closes
it; a lock keeps to one at a time, which suits a laptop and the servers' connection limits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from hearth import Every, SettingsStore, data_dir
from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.errors import ConnectionProblem, MailError, Offline
from hearth.connectors.mail.imap import open_imap
from hearth.connectors.mail.indexing import index_bodies
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.objects import Address
from hearth.connectors.mail.outbox import Outbox
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.sync import SyncReport, sync_folder

NAME = "mail"


class MailAccount:
    """Where the mail tools find the account, its folders, cached messages and the outbox."""

    def __init__(
        self,
        settings_store: SettingsStore | None = None,
        folder: Path | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings_store = settings_store or SettingsStore()
        base = folder or data_dir() / "mail"
        self.cache = MailCache(base / "cache.sqlite")
        self.outbox = Outbox(base / "outbox.sqlite")
        # A send cut short by a crash is never resent by itself: it becomes "unknown".
        self.outbox.recover()
        self.clock = clock
        self.last_sync: float | None = None
        # When Hearth last moved, deleted, filed or sent mail: a folder synced before that may
        # have mail the cache does not know of yet.
        self.changed_at = 0.0
        self._lock = threading.RLock()
        self._sync = Every(
            "mail sync", self._sync_if_set_up, lambda: self.public_settings().sync_minutes
        )

    def settings(self) -> MailSettings:
        return self.settings_store.load(NAME, MailSettings)

    def public_settings(self) -> MailSettings:
        """The settings without the password: no secret is read (nor a locked store opened)
        for a caller that has no use for it."""
        return self.settings_store.load(NAME, MailSettings, with_secrets=False)

    def save(self, settings: MailSettings) -> None:
        self.settings_store.save(NAME, settings)

    def use_password_for_session(self, password: str) -> None:
        """A password kept in memory only, for this session, whatever is stored."""
        if password:
            self.settings_store.hold(NAME, {"password": password})

    def ready(self) -> MailSettings:
        """The settings, refusing when the account cannot be reached with them."""
        settings = self.settings()
        if not settings.address or not settings.imap()[0]:
            raise MailError("mail is not set up yet: add your account under Accounts → Mail")
        if settings.password is None:
            raise MailError(
                "the mail password is not known this session: enter it under Accounts → Mail, "
                "or run `hearth mail --ask-password sync` in a terminal"
            )
        return settings

    def sender(self) -> Address:
        settings = self.public_settings()
        return Address(settings.display_name, settings.address)

    def own_addresses(self) -> set[str]:
        return {self.public_settings().address.lower()}

    def known_contacts(self) -> set[str]:
        """Addresses the user has written to, and their own: what lookalikes are checked against."""
        return self.cache.known_addresses() | self.own_addresses()

    @contextmanager
    def mailbox(self) -> Iterator[Mailbox]:
        """A logged-in mailbox; an unreachable server is `Offline`, so callers use the cache."""
        settings = self.ready()
        password = settings.password.get_secret_value() if settings.password else ""
        with self._lock:
            try:
                client = open_imap(settings, password)
            except ConnectionProblem as problem:
                if problem.stage in ("dns", "tcp"):
                    raise Offline(f"the mail server cannot be reached ({problem})") from problem
                raise
            with Mailbox(client) as mailbox:
                try:
                    yield mailbox
                finally:
                    if mailbox.changed:
                        self.changed_at = self.clock()

    def sync(
        self, folders: Sequence[str] | None = None, *, bodies: bool = True
    ) -> list[SyncReport]:
        """Bring the cache up to date with the server for `folders` (default: every folder);
        then, with `bodies`, index the bodies it lacks so that searches need no server."""
        with self.mailbox() as mailbox:
            names = folders or [f.name for f in mailbox.folders() if f.selectable]
            reports = [sync_folder(mailbox, self.cache, n, clock=self.clock) for n in names]
        self.last_sync = self.clock()
        for name in names if bodies else ():
            # A round per connection: between rounds, a tool waiting for the server goes first.
            while self.cache.pending(name)[1]:
                with self.mailbox() as mailbox:
                    index_bodies(mailbox, self.cache, name)
        return reports

    def _sync_if_set_up(self) -> None:
        if self.public_settings().address:
            self.sync()

    def start(self) -> None:
        """Sync now and then every `sync_minutes`, off the caller's thread."""
        self._sync.start()

    def sync_soon(self) -> None:
        """Sync as soon as the background job is free (new settings), if it runs at all."""
        self._sync.now()

    def stop(self) -> None:
        self._sync.stop()

    @property
    def last_error(self) -> str | None:
        return self._sync.last_error
