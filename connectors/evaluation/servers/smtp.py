"""A real aiosmtpd SMTP server on loopback (for tests and evals), over implicit TLS or STARTTLS.

Sending needs AUTH, and AUTH needs TLS. The server only records what it accepts (it relays
nothing), and it can drop the connection right after DATA, before its final reply, to show
what a client does when it cannot know whether the message went out, and refuse chosen
recipients with a reply of its choosing.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from dataclasses import dataclass
from typing import Any, Literal

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from hearth.connectors.evaluation.servers import free_port
from hearth.connectors.evaluation.servers.dovecot import PASSWORD, USER


@dataclass(frozen=True)
class Received:
    """One message the server accepted: its envelope and the bytes as the client sent them."""

    mail_from: str
    rcpt_tos: list[str]
    data: bytes


class _CountingSMTP(SMTP):
    """An SMTP session that tells its server about every AUTH command, before any password."""

    def __init__(self, owner: SmtpServer, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._owner = owner

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # aiosmtpd counts only STARTTLS as TLS; an implicit-TLS connection is TLS from the start.
        if self._tls_protocol is None and transport.get_extra_info("sslcontext") is not None:
            self._tls_protocol = transport._ssl_protocol  # type: ignore[attr-defined]
            assert self.session is not None
            self.session.ssl = self._tls_protocol._extra

    async def smtp_AUTH(self, arg: str) -> None:
        self._owner._count_auth()
        await super().smtp_AUTH(arg)


class _Controller(Controller):
    def __init__(self, owner: SmtpServer, *args: Any, **kwargs: Any) -> None:
        self._owner = owner
        super().__init__(*args, **kwargs)

    def factory(self) -> SMTP:
        return _CountingSMTP(self._owner, self.handler, **self.SMTP_kwargs)


class SmtpServer:
    """aiosmtpd on 127.0.0.1 with one account; `mode` is "tls" (implicit) or "starttls"."""

    host = "127.0.0.1"

    def __init__(
        self,
        ca: trustme.CA,
        mode: Literal["tls", "starttls"],
        user: str = USER,
        password: str = PASSWORD,
    ) -> None:
        self.ca, self.mode, self.user, self.password = ca, mode, user, password
        self.port = 0
        self.received: list[Received] = []
        self.drop_after_data = False
        # Recipients refused at RCPT (lower-cased address -> the reply, e.g. "550 5.1.1 ...").
        self.refusals: dict[str, str] = {}
        self.auth_attempts = 0
        self._lock = threading.Lock()
        self._controller: _Controller | None = None

    def _server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("localhost", "127.0.0.1").configure_cert(context)
        return context

    def _count_auth(self) -> None:
        with self._lock:
            self.auth_attempts += 1

    def _authenticate(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        mechanism: str,
        auth_data: Any,
    ) -> AuthResult:
        good = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == self.user.encode()
            and auth_data.password == self.password.encode()
        )
        return AuthResult(success=good, handled=False)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        refusal = self.refusals.get(address.strip().lower())
        if refusal is not None:
            return refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        # The bytes as the client sent them (CRLF line ends, dot-stuffing undone).
        data = envelope.original_content
        assert isinstance(data, bytes)
        received = Received(str(envelope.mail_from), [str(to) for to in envelope.rcpt_tos], data)
        with self._lock:
            self.received.append(received)
        if self.drop_after_data:
            # Accepted and recorded, but the client never hears the final 250.
            assert isinstance(server.transport, asyncio.Transport)
            server.transport.abort()
        return "250 2.0.0 Message accepted for delivery"

    def take_all(self) -> list[Received]:
        """Everything received so far, in order; the server forgets it (for the next round)."""
        with self._lock:
            taken = list(self.received)
            self.received.clear()
        return taken

    def start(self) -> SmtpServer:
        self.port = self.port or free_port()
        context = self._server_context()
        settings: dict[str, Any] = {
            "authenticator": self._authenticate,
            "auth_required": True,
            "auth_require_tls": True,
        }
        if self.mode == "tls":
            settings["ssl_context"] = context
        else:
            settings.update(tls_context=context, require_starttls=True)
        self._controller = _Controller(
            self, self, hostname=self.host, port=self.port, server_hostname="localhost", **settings
        )
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None
