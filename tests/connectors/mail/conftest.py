"""Fixtures for the mail tests: a test CA, a real Dovecot and real aiosmtpd servers over TLS."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.connector import MailConnector
from tests.connectors.mail.kit import open_account
from tests.connectors.servers import server_required


@pytest.fixture(scope="session")
def mail_ca() -> trustme.CA:
    """The certificate authority that issues every test server's certificate."""
    return trustme.CA()


@pytest.fixture
def trust_mail_ca(mail_ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `ssl.create_default_context()` trust the test CA (and nothing else)."""
    bundle = tmp_path / "mail-ca.pem"
    mail_ca.cert_pem.write_to_path(str(bundle))
    # OpenSSL reads these when the default verify paths are loaded, i.e. per new context.
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return bundle


@pytest.fixture
def dovecot(mail_ca: trustme.CA, trust_mail_ca: Path) -> Iterator[DovecotServer]:
    """A fresh Dovecot with user ann, an empty INBOX and the special-use folders.

    Its files live outside pytest's temporary folder, which each pytest run makes private
    again (0700): the mail processes, running as another user, must reach them.
    """
    root = Path(tempfile.mkdtemp(prefix="hearth-dovecot-"))
    with server_required():
        server = DovecotServer(root / "dovecot", mail_ca).start()
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def smtp_server(mail_ca: trustme.CA, trust_mail_ca: Path) -> Iterator[SmtpServer]:
    """An SMTP server with implicit TLS (like port 465)."""
    server = SmtpServer(mail_ca, "tls").start()
    yield server
    server.stop()


@pytest.fixture
def smtp_starttls(mail_ca: trustme.CA, trust_mail_ca: Path) -> Iterator[SmtpServer]:
    """An SMTP server with STARTTLS (like port 587); AUTH only after STARTTLS."""
    server = SmtpServer(mail_ca, "starttls").start()
    yield server
    server.stop()


@pytest.fixture
def account(
    tmp_path: Path, secure_keyring: object, dovecot: DovecotServer, smtp_server: SmtpServer
) -> Iterator[MailAccount]:
    """Ann's account on the test Dovecot and SMTP servers, its password in the keyring."""
    account = open_account(tmp_path, dovecot, smtp_server)
    yield account
    account.stop()


@pytest.fixture
def connector(account: MailAccount) -> MailConnector:
    return MailConnector(account)
