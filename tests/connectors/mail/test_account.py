"""The account without a keyring: the password is refused for storage, kept for the session
only, and the account works with it; nothing on disk ever holds it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from pydantic import SecretStr

from hearth import NoSecretStore, Secrets, SettingsStore
from hearth.connectors.evaluation.servers.dovecot import PASSWORD, DovecotServer, message
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.account import NAME, MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.errors import MailError
from hearth.connectors.mail.settings import MailSettings
from hearth.secrets import SystemKeyring
from tests.connectors.mail.kit import account_settings, run

pytestmark = pytest.mark.server


@pytest.fixture
def plaintext_keyring(tmp_path: Path) -> Iterator[PlaintextKeyring]:
    previous = keyring.get_keyring()
    backend = PlaintextKeyring()
    backend.file_path = str(tmp_path / "plaintext.cfg")
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_without_a_secure_keyring_the_password_lives_for_the_session_only(
    tmp_path: Path,
    hearth_home: Path,
    plaintext_keyring: PlaintextKeyring,
    dovecot: DovecotServer,
    smtp_server: SmtpServer,
) -> None:
    store = SettingsStore(tmp_path / "connectors")
    with pytest.raises(NoSecretStore, match="no keyring"):
        store.save(NAME, account_settings(dovecot, smtp_server))
    connector = MailConnector(MailAccount(store, tmp_path / "mail"))
    dovecot.append("INBOX", message("Hello"))
    with pytest.raises(MailError, match="password is not known this session"):
        run(connector, "mail.list")

    store.hold(NAME, {"password": PASSWORD})
    assert [m.subject for m in run(connector, "mail.list").messages] == ["Hello"]

    assert not Path(plaintext_keyring.file_path).exists()
    for path in [*tmp_path.rglob("*"), *hearth_home.rglob("*")]:
        if path.is_file() and "dovecot" not in path.parts:
            assert PASSWORD.encode() not in path.read_bytes(), path
    # A new session (a new process: its own secrets) knows no password again.
    fresh = SettingsStore(store.folder, Secrets(hearth_home / "secrets.hearth", system=None))
    with pytest.raises(MailError, match="password is not known"):
        run(MailConnector(MailAccount(fresh, tmp_path / "mail")), "mail.list")


def test_the_sender_and_own_address_never_ask_the_keyring(
    tmp_path: Path, secure_keyring: SystemKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate words every send with its sender: a keyring read (a D-Bus call, and the mail
    password) per judged call is work and exposure for an address the settings file holds.
    The password itself is read once a session, however often the settings are."""
    SettingsStore(tmp_path / "connectors").save(
        NAME, MailSettings(address="ann@example.org", password=SecretStr("secret"))
    )
    # A new session: nothing read yet.
    session = Secrets(tmp_path / "secrets.hearth", secure_keyring)
    account = MailAccount(SettingsStore(tmp_path / "connectors", session), tmp_path / "mail")
    asked: list[str] = []
    real = secure_keyring.backend.get_password
    monkeypatch.setattr(
        secure_keyring.backend, "get_password", lambda *key: asked.append(key[1]) or real(*key)
    )
    try:
        assert account.sender().email == "ann@example.org"
        assert account.own_addresses() == {"ann@example.org"}
        assert asked == []
        for _ in range(13):
            assert account.settings().password == SecretStr("secret")
        assert asked == ["mail.password"]
    finally:
        account.stop()
