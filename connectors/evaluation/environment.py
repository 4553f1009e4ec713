"""The world a scenario runs in: real loopback servers, a Documents folder and the laptop.

One `Environment` starts Dovecot, an SMTP server, Radicale and the laptop's settings once,
then `prepare()` empties and loads them for each scenario and gives Hearth a fresh home (its
database, settings, caches and trash), so no scenario sees another's traces. The Wi-Fi radio
gates the SMTP server: switched off, sending fails as it would on a laptop out of range. A
scenario with MCP tools also gets a real stdio MCP server offering them (`servers.mcp_notes`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import uuid
from datetime import datetime
from pathlib import Path

import trustme
from caldav.davclient import DAVClient
from pydantic import SecretStr

from hearth import Connector, Secrets, SettingsStore
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.evaluation import snapshot
from hearth.connectors.evaluation.laptop import Laptop
from hearth.connectors.evaluation.loading import event_ical, raw_message
from hearth.connectors.evaluation.scenario import State
from hearth.connectors.evaluation.servers import dovecot as dovecot_server
from hearth.connectors.evaluation.servers import radicale as radicale_server
from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.evaluation.servers.radicale import RadicaleServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.connectors.mail.account import NAME as MAIL_SETTINGS
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.system.connector import SystemConnector

CALENDARS = ("Work", "Personal")
BUILTIN = ("mail", "calendar", "files", "system")
# Set while a scenario runs, restored after: Hearth's home, the trash, the CA the servers use.
_ENVIRONMENT = ("HEARTH_HOME", "XDG_DATA_HOME", "SSL_CERT_FILE", "SSL_CERT_DIR")


class Environment:
    """The servers and folders every scenario of one run shares; use it in a `with` block."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder or tempfile.mkdtemp(prefix="hearth-eval-"))
        self.documents = self.folder / "home" / "Documents"
        self.ca = trustme.CA()
        self._saved_env = {name: os.environ.get(name) for name in _ENVIRONMENT}
        # Each scenario's Hearth keeps the loopback passwords in its own password store.
        self._store_password = os.urandom(16).hex()
        self.dovecot: DovecotServer | None = None
        self.smtp: SmtpServer | None = None
        self.radicale: RadicaleServer | None = None
        self.laptop: Laptop | None = None
        self._smtp_port = 0
        self._receipts: list[tuple[list[str], bytes]] = []
        self._run = 0
        self._cleanup: list[Path] = []
        self.ids: dict[str, str] = {}  # "mail:SUBJECT" and "event:TITLE" -> the id tools take
        self._refusals: dict[str, str] = {}
        self._mcp_tools: list[dict[str, str]] = []
        self._mcp: list[Connector] = []

    def __enter__(self) -> Environment:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def start(self) -> None:
        bundle = self.folder / "ca.pem"
        self.ca.cert_pem.write_to_path(str(bundle))
        os.environ["SSL_CERT_FILE"] = str(bundle)
        os.environ.pop("SSL_CERT_DIR", None)
        self.dovecot = DovecotServer(self._private_dir("dovecot"), self.ca).start()
        self.smtp = SmtpServer(self.ca, "tls").start()
        self._smtp_port = self.smtp.port
        self.radicale = RadicaleServer(self.folder / "radicale").start()
        self.laptop = Laptop(self.folder / "laptop", on_wifi=self._wifi).start()

    def close(self) -> None:
        self._stop_mcp()
        for server in (self.laptop, self.radicale, self.smtp, self.dovecot):
            if server is not None:
                server.stop()
        self.laptop = self.radicale = self.smtp = self.dovecot = None
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        for folder in [*self._cleanup, self.folder]:
            shutil.rmtree(folder, ignore_errors=True)

    def prepare(self, state: State, now: datetime) -> snapshot.Snapshot:
        """Empty everything, load `state`, point Hearth at a fresh home; the state before."""
        assert self.dovecot and self.radicale and self.laptop, "start() the environment first"
        self._run += 1
        self._stop_mcp()
        self._mcp_tools = [tool.model_dump() for tool in state.mcp]
        self._refusals = {item.to.strip().lower(): item.reply for item in state.smtp_refusals}
        if self.smtp is not None:
            self.smtp.refusals = dict(self._refusals)
        home = self.folder / f"run-{self._run}"
        os.environ["HEARTH_HOME"] = str(home / "hearth")
        os.environ["XDG_DATA_HOME"] = str(home / "share")
        self.laptop.apply({"wifi": True})
        self._take_receipts()
        self._receipts.clear()
        self.ids.clear()
        self.dovecot.empty_all()
        for mail in state.mail:
            uid = self.dovecot.append(mail.folder, raw_message(mail, now), mail.flags)
            self.ids[f"mail:{mail.subject}"] = f"{mail.folder}/{uid}"
        self._load_calendars(state)
        shutil.rmtree(self.documents, ignore_errors=True)
        self.documents.mkdir(parents=True)
        for file in state.files:
            target = self.documents / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.text, encoding="utf-8")
        self.laptop.apply(state.settings.model_dump())
        return self.snapshot()

    def connectors(self, now: datetime) -> list[Connector]:
        """The four connectors, configured for these servers in the current Hearth home, and
        the scenario's MCP server, if it has one."""
        assert self.dovecot and self.radicale and self.laptop
        home = Path(os.environ["HEARTH_HOME"])
        store = SettingsStore(home / "connectors", self._password_store(home))
        store.save(MAIL_SETTINGS, self._mail_settings())
        account = MailAccount(store, home / "mail")
        account.use_password_for_session(dovecot_server.PASSWORD)
        store.save(
            "calendar",
            CalendarSettings(
                server=self.radicale.url,
                username=radicale_server.USER,
                password=SecretStr(radicale_server.PASSWORD),
            ),
        )
        library = CalendarLibrary(store, home / "calendar-cache.sqlite", today=now.date)
        library.refresh()  # as the app's first sync would, before the user's first question
        calendar = CalendarConnector(library, ChangeLog(home / "calendar-changes.sqlite"))
        files = FilesConnector(FileLibrary())
        files.grant(self.documents)
        system = SystemConnector(self.laptop.machine())
        return [MailConnector(account), calendar, files, system, *self._mcp_connectors()]

    def _mcp_connectors(self) -> list[Connector]:
        """The MCP server "Notes" with the scenario's tools, when it has any."""
        if not self._mcp_tools:
            return []
        # The mcp package is imported only for a scenario that runs a server.
        from hearth.connectors.evaluation.servers import mcp_notes
        from hearth.connectors.mcp.config import McpConfig, ServerConfig
        from hearth.connectors.mcp.connector import server_connectors
        from hearth.connectors.mcp.runtime import McpRuntime

        server = ServerConfig(
            command=sys.executable,
            args=["-m", mcp_notes.__name__],
            env={mcp_notes.TOOLS_ENV: json.dumps(self._mcp_tools)},
        )
        config = McpConfig.model_validate({"mcpServers": {mcp_notes.SERVER: server}})
        self._mcp = list(server_connectors(config, McpRuntime(), BUILTIN))
        for connector in self._mcp:
            if not connector.tools:
                # A scenario whose server never answered would test nothing: say so.
                raise RuntimeError(f"the scenario's MCP server: {connector.status_line()}")
        return list(self._mcp)

    def _stop_mcp(self) -> None:
        for connector in self._mcp:
            connector.stop()
        self._mcp = []

    def snapshot(self) -> snapshot.Snapshot:
        assert self.dovecot and self.radicale and self.laptop
        self._take_receipts()
        with self.dovecot.session() as client:
            mail = snapshot.read_mailbox(client)
        return snapshot.Snapshot(
            mail=mail,
            sent=snapshot.sent_items(self._receipts),
            events=snapshot.read_calendars(
                self.radicale.url, radicale_server.USER, radicale_server.PASSWORD
            ),
            files=snapshot.read_files(self.documents),
            settings=dict(self.laptop.read()),
        )

    def _mail_settings(self) -> MailSettings:
        assert self.dovecot
        return MailSettings(
            address=dovecot_server.ADDRESS,
            display_name="Ann",
            username=dovecot_server.USER,
            imap_host=self.dovecot.host,
            imap_port=self.dovecot.tls_port,
            imap_security="tls",
            smtp_host=SmtpServer.host,  # also while Wi-Fi is off and the server down
            smtp_port=self._smtp_port,
            smtp_security="tls",
        )

    def _load_calendars(self, state: State) -> None:
        assert self.radicale
        self.radicale.empty(radicale_server.USER)
        client = DAVClient(
            url=self.radicale.url,
            username=radicale_server.USER,
            password=radicale_server.PASSWORD,
        )
        try:
            principal = client.principal()  # type: ignore[no-untyped-call]
            made = {name: principal.make_calendar(name=name) for name in CALENDARS}
            for event in state.events:
                if event.calendar not in made:
                    made[event.calendar] = principal.make_calendar(name=event.calendar)
                uid = f"{uuid.uuid4()}@scenario.example"
                made[event.calendar].save_event(event_ical(event, uid))
                self.ids[f"event:{event.title}"] = uid
        finally:
            client.close()

    def _wifi(self, on: bool) -> None:
        # The network going away makes the SMTP server unreachable; coming back, reachable on
        # the same address, as a laptop's mail server would be.
        if on and self.smtp is None:
            self.smtp = SmtpServer(self.ca, "tls")
            self.smtp.port = self._smtp_port
            self.smtp.refusals = dict(self._refusals)
            self.smtp.start()
        elif not on and self.smtp is not None:
            self._take_receipts()
            self.smtp.stop()
            self.smtp = None

    def _take_receipts(self) -> None:
        if self.smtp is not None:
            self._receipts.extend((list(item.rcpt_tos), item.data) for item in self.smtp.take_all())

    def _password_store(self, home: Path) -> Secrets:
        secrets = Secrets(home / "secrets.hearth", system=None)
        if secrets.vault.exists:
            secrets.unlock(self._store_password)
        else:
            secrets.create_store(self._store_password)
        return secrets

    def _private_dir(self, name: str) -> Path:
        # Dovecot's mail processes run as another user when we are root: they must reach it.
        folder = Path(tempfile.mkdtemp(prefix=f"hearth-eval-{name}-"))
        self._cleanup.append(folder)
        return folder / name
