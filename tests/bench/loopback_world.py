"""Hearth beside real loopback servers, for tests/bench/memory.py and card_latency.py.

The evaluation's `Environment` starts Dovecot, an aiosmtpd server, Radicale and the laptop's
settings (a private PulseAudio, dconf and backlight) and loads `STATE` into them. The four
built-in connectors are then made as the evaluation makes them, except that both passwords, the
mail account's and the calendar's, are kept in Hearth's own encrypted password store (the
vault, unlocked once as the app does at start), never held for the session or in a keyring.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from pydantic import SecretStr

from hearth import Connector, Secrets, SettingsStore
from hearth.assistant import Assistant
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.evaluation.environment import Environment
from hearth.connectors.evaluation.runner import ConnectorsPlugin
from hearth.connectors.evaluation.scenario import Event, File, Mail, State
from hearth.connectors.evaluation.servers import dovecot, radicale
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.connectors.mail.account import NAME as MAIL_SETTINGS
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.system.connector import SystemConnector
from hearth.generation import ChatModel

STORE_PASSWORD = "bench store password"  # the vault's own password, typed once a session
_DAY = datetime.now().astimezone().date().isoformat()

STATE = State(
    mail=(
        Mail.model_validate(
            {
                "from": "Kari Moe <kari@fjord.example>",
                "subject": "Drawings for the cabin",
                "body": "Hi Ann,\n\nThe revised drawings are attached in spirit.\n\nKari",
            }
        ),
        Mail.model_validate(
            {
                "from": "Per Lund <per@lund.example>",
                "subject": "Minutes of the board meeting",
                "body": "Minutes: budget approved, next meeting in March.",
            }
        ),
        Mail.model_validate(
            {
                "from": "Shop <news@shop.example>",
                "subject": "Weekly deals",
                "body": "Everything must go.",
            }
        ),
    ),
    events=(
        Event(calendar="Work", title="Planning", start=f"{_DAY}T09:00", end=f"{_DAY}T10:00"),
        Event(calendar="Personal", title="Yoga", start=f"{_DAY}T18:00", end=f"{_DAY}T19:00"),
    ),
    files=(
        File(path="notes.txt", text="Shopping: milk, bread, coffee.\n"),
        File(path="budget-2025.txt", text="Budget 2025\nRent: 12 000\nFood: 4 000\n"),
        File(path="Taxes/tax-return-2024.txt", text="Tax return 2024\nIncome: 612 400\n"),
        File(path="Letters/cover-letter.txt", text="Dear hiring manager,\n"),
    ),
)


class World:
    """The servers holding `STATE`, a fresh Hearth home and its four connectors; a `with` block."""

    def __init__(self) -> None:
        self.environment = Environment()
        self.now = datetime.now().astimezone()
        self.connectors: list[Connector] = []
        self.secrets: Secrets | None = None
        self.home = Path()  # Hearth's home (HEARTH_HOME), set once the servers hold `STATE`

    def __enter__(self) -> World:
        self.environment.__enter__()
        try:
            self.environment.prepare(STATE, self.now)
            self.connectors = self._connectors()
        except BaseException:
            self.environment.close()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        for connector in self.connectors:
            connector.stop()
        self.environment.close()

    @property
    def documents(self) -> Path:
        return self.environment.documents

    def id_of(self, kind: str, name: str) -> str:
        """The id tools take for an item of `STATE`: kind "mail" (by subject) or "event"."""
        return self.environment.ids[f"{kind}:{name}"]

    def assistant(self, model: ChatModel) -> Assistant:
        """Hearth's composition root with these connectors (and no installed plugin)."""
        return Assistant.open(
            model,
            plugins=[ConnectorsPlugin(self.connectors)],
            entry_points=False,
            user_plugins=False,
        )

    def take_sent(self) -> int:
        """Forget what the SMTP server (in this process) accepted; how many messages."""
        smtp = self.environment.smtp
        return len(smtp.take_all()) if smtp is not None else 0

    def _connectors(self) -> list[Connector]:
        environment = self.environment
        assert environment.dovecot and environment.smtp and environment.radicale
        assert environment.laptop
        home = self.home = Path(os.environ["HEARTH_HOME"])
        self.secrets = Secrets(home / "secrets.hearth", system=None)
        self.secrets.create_store(STORE_PASSWORD)
        store = SettingsStore(home / "connectors", self.secrets)
        store.save(
            MAIL_SETTINGS,
            MailSettings(
                address=dovecot.ADDRESS,
                display_name="Ann",
                username=dovecot.USER,
                password=SecretStr(dovecot.PASSWORD),
                imap_host=environment.dovecot.host,
                imap_port=environment.dovecot.tls_port,
                imap_security="tls",
                smtp_host=environment.smtp.host,
                smtp_port=environment.smtp.port,
                smtp_security="tls",
            ),
        )
        store.save(
            "calendar",
            CalendarSettings(
                server=environment.radicale.url,
                username=radicale.USER,
                password=SecretStr(radicale.PASSWORD),
            ),
        )
        # The vault is locked again and opened with its password, as at every start: what the
        # connectors read afterwards comes out of the encrypted file.
        self.secrets.vault.lock()
        self.secrets.unlock(STORE_PASSWORD)
        library = CalendarLibrary(store, home / "calendar-cache.sqlite", today=self.now.date)
        library.refresh()
        files = FilesConnector(FileLibrary())
        files.grant(environment.documents)
        return [
            MailConnector(MailAccount(store, home / "mail")),
            CalendarConnector(library, ChangeLog(home / "calendar-changes.sqlite")),
            files,
            SystemConnector(environment.laptop.machine()),
        ]
