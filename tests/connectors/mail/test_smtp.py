"""SMTP against real aiosmtpd servers on loopback: TLS and pins before AUTH, and delivery that
knows whether the server may have the message."""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session

from hearth.connectors.evaluation.servers import free_port
from hearth.connectors.evaluation.servers.dovecot import ADDRESS, PASSWORD, USER
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail import tls
from hearth.connectors.mail.compose import Draft, build_message, new_message_id
from hearth.connectors.mail.errors import ConnectionProblem
from hearth.connectors.mail.objects import Address
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.smtp import NotSent, SendUnknown, deliver, open_smtp

ANN = Address("Ann Example", ADDRESS)
DRAFT = Draft(
    sender=ANN,
    to=(Address("Bob", "bob@example.com"),),
    cc=(Address("", "carol@example.net"),),
    bcc=(Address("Dave", "dave@example.net"),),
    subject="Lunch",
    body="Noon?\n.\n..two dots\nAnn",
)


def _settings(server: SmtpServer, *, pin: str = "", security: str | None = None) -> MailSettings:
    return MailSettings(
        address=ADDRESS,
        username=USER,
        smtp_host=server.host,
        smtp_port=server.port,
        smtp_security=security or server.mode,
        trusted_certificate=pin,
    )


def _send(server: SmtpServer, **settings: Any) -> str:
    message_id = new_message_id(ANN)
    client = open_smtp(_settings(server, **settings), PASSWORD, timeout=10)
    try:
        raw = build_message(DRAFT, message_id=message_id)
        deliver(client, sender=ANN.email, recipients=DRAFT.recipients, message=raw)
    finally:
        client.close()
    return message_id


def _pin_of(server: SmtpServer) -> str:
    """The fingerprint the user would copy from 'Test connection' (implicit TLS server)."""
    pem = ssl.get_server_certificate((server.host, server.port))
    return tls.fingerprint(ssl.PEM_cert_to_DER_cert(pem))


@pytest.fixture
def stranger(trust_mail_ca: Path) -> Iterator[SmtpServer]:
    """An implicit-TLS server whose certificate comes from a CA this computer does not trust."""
    server = SmtpServer(trustme.CA(), "tls").start()
    yield server
    server.stop()


@pytest.mark.parametrize("fixture", ["smtp_server", "smtp_starttls"])
def test_sends_with_the_message_id_and_bcc_only_in_the_envelope(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    server: SmtpServer = request.getfixturevalue(fixture)
    message_id = _send(server)
    [received] = server.received
    assert received.mail_from == ADDRESS
    assert received.rcpt_tos == ["bob@example.com", "carol@example.net", "dave@example.net"]
    assert f"Message-ID: {message_id}".encode() in received.data
    assert b"dave@example.net" not in received.data.lower()
    # Dot-stuffed on the wire, so the server gets the lines back as written.
    assert b"\r\n.\r\n..two dots\r\n" in received.data
    assert server.auth_attempts == 1


def test_refused_recipient_is_not_sent_and_named(smtp_starttls: SmtpServer) -> None:
    client = open_smtp(_settings(smtp_starttls), PASSWORD, timeout=10)
    raw = build_message(DRAFT, message_id=new_message_id(ANN))
    with pytest.raises(NotSent, match="a@b@c") as refused:
        deliver(client, sender=ANN.email, recipients=["bob@example.com", "a@b@c"], message=raw)
    assert "553" in refused.value.reason
    assert smtp_starttls.received == []
    # RSET left the connection fit for the next message.
    deliver(client, sender=ANN.email, recipients=["bob@example.com"], message=raw)
    assert [r.rcpt_tos for r in smtp_starttls.received] == [["bob@example.com"]]
    client.close()


def test_definite_refusal_of_the_data_is_not_sent(mail_ca: trustme.CA, trust_mail_ca: Path) -> None:
    class Refusing(SmtpServer):
        async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
            return "554 5.7.1 Message refused as spam"

    server = Refusing(mail_ca, "starttls").start()
    try:
        with pytest.raises(NotSent, match=r"554 5\.7\.1 Message refused as spam"):
            _send(server)
    finally:
        server.stop()


@pytest.mark.parametrize("fixture", ["smtp_server", "smtp_starttls"])
def test_drop_after_data_is_unknown_and_the_server_has_it(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    server: SmtpServer = request.getfixturevalue(fixture)
    server.drop_after_data = True
    with pytest.raises(SendUnknown, match="not known whether"):
        _send(server)
    # The server did take it: a resend would deliver it twice, hence never automatic.
    assert len(server.received) == 1


def test_stopped_server_is_a_tcp_problem(smtp_server: SmtpServer) -> None:
    smtp_server.stop()
    with pytest.raises(ConnectionProblem) as problem:
        open_smtp(_settings(smtp_server), PASSWORD, timeout=5)
    assert problem.value.stage == "tcp"


def test_unknown_host_is_a_dns_problem() -> None:
    settings = MailSettings(address=ADDRESS, smtp_host="smtp.nothing.invalid", smtp_port=465)
    with pytest.raises(ConnectionProblem) as problem:
        open_smtp(settings, PASSWORD, timeout=5)
    assert problem.value.stage == "dns"
    assert "smtp.nothing.invalid" in str(problem.value)


def test_wrong_password_is_an_auth_problem(smtp_starttls: SmtpServer) -> None:
    with pytest.raises(ConnectionProblem) as problem:
        open_smtp(_settings(smtp_starttls), "wrong", timeout=10)
    assert problem.value.stage == "auth"
    assert "app password" in str(problem.value)


def test_untrusted_certificate_is_refused_before_auth(stranger: SmtpServer) -> None:
    with pytest.raises(ConnectionProblem) as problem:
        open_smtp(_settings(stranger), PASSWORD, timeout=10)
    assert problem.value.stage == "tls"
    assert "authority this computer does not trust" in str(problem.value)
    assert stranger.auth_attempts == 0


@pytest.mark.parametrize("fixture", ["smtp_server", "smtp_starttls"])
def test_wrong_pin_is_refused_before_any_auth(fixture: str, request: pytest.FixtureRequest) -> None:
    server: SmtpServer = request.getfixturevalue(fixture)
    with pytest.raises(ConnectionProblem) as problem:
        open_smtp(_settings(server, pin="ab" * 32), PASSWORD, timeout=10)
    assert problem.value.stage == "tls"
    assert "not the one you trusted" in str(problem.value)
    assert server.auth_attempts == 0
    assert server.received == []


def test_right_pin_trusts_a_certificate_from_an_unknown_authority(stranger: SmtpServer) -> None:
    _send(stranger, pin=_pin_of(stranger))
    assert len(stranger.received) == 1


class _PlainServer:
    """A real SMTP server without TLS that would take a password in clear, and counts them."""

    def __init__(self) -> None:
        self.passwords_seen = 0
        self.port = free_port()

    def _authenticate(self, *_: object) -> AuthResult:
        self.passwords_seen += 1
        return AuthResult(success=True)

    def __enter__(self) -> _PlainServer:
        self._controller = Controller(
            object(),
            hostname="127.0.0.1",
            port=self.port,
            authenticator=self._authenticate,
            auth_require_tls=False,
        )
        self._controller.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._controller.stop()


def test_starttls_is_required_never_a_clear_password() -> None:
    with _PlainServer() as plain:
        client = smtplib.SMTP("127.0.0.1", plain.port, timeout=10)
        assert b"AUTH" in client.ehlo()[1]  # it would, in clear
        client.close()
        settings = MailSettings(
            address=ADDRESS, smtp_host="127.0.0.1", smtp_port=plain.port, smtp_security="starttls"
        )
        with pytest.raises(ConnectionProblem) as problem:
            open_smtp(settings, PASSWORD, timeout=10)
    assert problem.value.stage == "capability"
    assert "does not offer STARTTLS" in str(problem.value)
    assert plain.passwords_seen == 0
