"""Connecting to a real Dovecot: TLS kinds, pinning before login, and each failure's stage."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.mail.errors import ConnectionProblem, Offline
from hearth.connectors.mail.imap import open_imap, presented_fingerprint
from hearth.connectors.mail.presets import Security
from hearth.connectors.mail.settings import MailSettings


def settings_for(
    dovecot: DovecotServer, security: Security = "tls", **changes: object
) -> MailSettings:
    port = dovecot.tls_port if security == "tls" else dovecot.starttls_port
    values: dict[str, object] = {
        "address": dovecot.address,
        "username": dovecot.user,
        "imap_host": dovecot.host,
        "imap_port": port,
        "imap_security": security,
    }
    values.update(changes)
    return MailSettings(**values)  # type: ignore[arg-type]


def distrust_the_test_ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust only an unrelated CA, so Dovecot's certificate is signed by an unknown authority."""
    other = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    monkeypatch.setenv("SSL_CERT_FILE", str(other))


def closed_port(host: str) -> int:
    """A port on `host` that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def logins_in_log(dovecot: DovecotServer, since: int) -> int:
    """Logins in the server's log after its first `since` characters (a test's start)."""
    return dovecot.log_text()[since:].count(f"user=<{dovecot.user}>")


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_connects_and_logs_in(dovecot: DovecotServer, security: Security) -> None:
    client = open_imap(settings_for(dovecot, security), dovecot.password)
    try:
        assert client.select_folder("INBOX", readonly=True)[b"EXISTS"] == 0
        assert client.socket().version() in ("TLSv1.2", "TLSv1.3")
    finally:
        client.logout()


def test_wrong_password_is_stage_auth(dovecot: DovecotServer) -> None:
    with pytest.raises(ConnectionProblem) as problem:
        open_imap(settings_for(dovecot), "wrong")
    assert problem.value.stage == "auth"
    assert "refused the user name or password" in str(problem.value)


def test_closed_port_is_stage_tcp_or_offline(dovecot: DovecotServer) -> None:
    closed = settings_for(dovecot, imap_port=closed_port(dovecot.host))
    with pytest.raises(ConnectionProblem) as problem:
        open_imap(closed, "x", timeout=5)
    assert problem.value.stage == "tcp"
    assert "refused" in str(problem.value)
    with pytest.raises(Offline):
        open_imap(closed, "x", timeout=5, for_use=True)


def test_unknown_host_is_stage_dns() -> None:
    settings = MailSettings(
        address="ann@example.org", imap_host="nonexistent.invalid", imap_port=993
    )
    with pytest.raises(ConnectionProblem) as problem:
        open_imap(settings, "x", timeout=5)
    assert problem.value.stage == "dns"
    assert "nonexistent.invalid could not be found" in str(problem.value)


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_untrusted_certificate_is_stage_tls_before_login(
    dovecot: DovecotServer, security: Security, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = len(dovecot.log_text())
    distrust_the_test_ca(tmp_path, monkeypatch)
    with pytest.raises(ConnectionProblem) as problem:
        open_imap(settings_for(dovecot, security), dovecot.password)
    assert problem.value.stage == "tls"
    assert "authority this computer does not trust" in str(problem.value)
    assert "fingerprint" in str(problem.value)
    assert logins_in_log(dovecot, start) == 0


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_pinned_certificate_works_without_a_trusted_ca(
    dovecot: DovecotServer, security: Security, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = len(dovecot.log_text())
    port = dovecot.tls_port if security == "tls" else dovecot.starttls_port
    distrust_the_test_ca(tmp_path, monkeypatch)
    pin = presented_fingerprint(dovecot.host, port, security)
    assert pin is not None and len(pin) == 64
    assert logins_in_log(dovecot, start) == 0  # reading the certificate never logs in
    client = open_imap(settings_for(dovecot, security, trusted_certificate=pin), dovecot.password)
    client.logout()


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_wrong_pin_is_refused_before_login(dovecot: DovecotServer, security: Security) -> None:
    start = len(dovecot.log_text())
    wrong = "ab" * 32
    with pytest.raises(ConnectionProblem) as problem:
        open_imap(settings_for(dovecot, security, trusted_certificate=wrong), dovecot.password)
    assert problem.value.stage == "tls"
    assert "is not the one you trusted" in str(problem.value)
    deadline = time.monotonic() + 5
    while "no auth attempts" not in dovecot.log_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "no auth attempts" in dovecot.log_text()
    assert logins_in_log(dovecot, start) == 0


def test_presented_fingerprint_of_nothing_is_none(dovecot: DovecotServer) -> None:
    assert presented_fingerprint(dovecot.host, closed_port(dovecot.host), "tls") is None


@pytest.fixture
def server_without_starttls() -> Iterator[tuple[int, list[bytes]]]:
    """A plain-text IMAP greeter on loopback that offers no STARTTLS; records what it hears."""
    listener = socket.create_server(("127.0.0.1", 0))
    heard: list[bytes] = []

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.sendall(b"* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN UIDPLUS] ready\r\n")
            connection.settimeout(2)
            try:
                while chunk := connection.recv(4096):
                    heard.append(chunk)
                    tag = chunk.split(b" ", 1)[0]
                    connection.sendall(b"* CAPABILITY IMAP4rev1 AUTH=PLAIN UIDPLUS\r\n")
                    connection.sendall(tag + b" OK done\r\n")
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], heard
    listener.close()
    thread.join(timeout=5)


def test_starttls_is_required_never_plaintext(
    server_without_starttls: tuple[int, list[bytes]],
) -> None:
    port, heard = server_without_starttls
    settings = MailSettings(
        address="ann@example.org", imap_host="127.0.0.1", imap_port=port, imap_security="starttls"
    )
    with pytest.raises(ConnectionProblem) as problem:
        open_imap(settings, "secret password", timeout=5)
    assert problem.value.stage == "tls"
    assert "does not offer STARTTLS" in str(problem.value)
    assert not any(b"secret" in chunk or b"LOGIN" in chunk.upper() for chunk in heard)
