"""Sending over SMTP: a TLS connection checked before the password goes out, and a delivery
that knows exactly whether the server may have the message.

The line that matters is the message data. Until the server has answered DATA with 354,
nothing can have been accepted, so a failure is `NotSent`. Once the data starts to flow, a
dropped connection or a timeout leaves it open whether the server took the message (it may
have, and delivered it), so that is `SendUnknown`, which must never be retried on its own:
a retry could send the message twice.
"""

from __future__ import annotations

import contextlib
import re
import smtplib
import socket
import ssl
from collections.abc import Sequence

from hearth.connectors.mail import tls
from hearth.connectors.mail.errors import ConnectionProblem, MailError
from hearth.connectors.mail.presets import Security
from hearth.connectors.mail.settings import MailSettings

__all__ = ["NotSent", "SendUnknown", "deliver", "open_smtp"]

_LINE_END = re.compile(rb"\r\n|\n|\r")
_LEADING_DOT = re.compile(rb"^\.", re.MULTILINE)


class NotSent(MailError):
    """The server definitely did not accept the message; trying again later is safe."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"The message was not sent: {reason}")
        self.reason = reason


class SendUnknown(MailError):
    """The connection broke while the message was going out: the server may have it."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"The connection broke while the message was being sent ({reason}), so it is not "
            "known whether the server accepted it. It was not sent again, to avoid sending it "
            "twice; look in the Sent folder or ask a recipient before sending it again."
        )
        self.reason = reason


def presented_smtp_fingerprint(
    host: str, port: int, security: Security, *, timeout: float = 10.0
) -> str | None:
    """The SHA-256 of the certificate the SMTP server presents, to show the user what they
    would pin. Verification is off for this one connection ONLY to read the certificate: it
    never logs in and sends nothing but EHLO and STARTTLS. None if it cannot be read."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        if security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(host, port, timeout=timeout)
            client.starttls(context=context)
        try:
            sock = client.sock
            certificate = (
                sock.getpeercert(binary_form=True) if isinstance(sock, ssl.SSLSocket) else None
            )
        finally:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                client.quit()
    except (smtplib.SMTPException, OSError):
        return None
    return tls.fingerprint(certificate) if certificate else None


def open_smtp(settings: MailSettings, password: str, *, timeout: float = 30.0) -> smtplib.SMTP:
    """A logged-in SMTP connection over TLS (implicit or required STARTTLS), pin checked."""
    host, port, security = settings.smtp()
    if not host:
        raise ConnectionProblem("settings", "No SMTP server is set for this account.")
    pinned = settings.smtp_trusted_certificate
    context = tls.client_context(pinned)
    client: smtplib.SMTP | None = None
    try:
        if security == "tls":
            client = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(host, port, timeout=timeout)
            client.ehlo()
            if not client.has_extn("starttls"):
                raise ConnectionProblem(
                    "capability",
                    f"{host} does not offer STARTTLS, so the password would travel "
                    "unencrypted; Hearth refuses. Use the server's TLS port (often 465).",
                )
            try:
                client.starttls(context=context)
            except smtplib.SMTPResponseException as error:
                raise ConnectionProblem(
                    "tls", f"{host} would not start TLS ({_why(error)}); nothing was sent."
                ) from error
        tls.check_pin(client.sock, pinned, host)
        client.ehlo()
        if not client.has_extn("auth"):
            raise ConnectionProblem("capability", f"{host} offers no way to log in (AUTH).")
        client.login(settings.login, password)
    except ConnectionProblem:
        _close(client)
        raise
    except Exception as error:
        _close(client)
        raise _connection_problem(error, host, port) from error
    return client


def deliver(
    client: smtplib.SMTP, *, sender: str, recipients: Sequence[str], message: bytes
) -> None:
    """Send `message` to `recipients`; NotSent if refused for sure, SendUnknown if unclear."""
    if not recipients:
        raise ValueError("deliver() needs at least one recipient")
    _offer(client, sender, recipients)
    data = _dot_stuffed(message)
    try:
        client.send(data)
        code, reply = client.getreply()
    except (smtplib.SMTPException, OSError) as error:
        raise SendUnknown(_why(error)) from error
    if code == 250:
        return
    if 400 <= code < 600:
        raise NotSent(f"the server refused it: {code} {_text(reply)}")
    # A reply that is no reply (-1, or a code outside SMTP's) decides nothing.
    raise SendUnknown(f"the server answered {code} {_text(reply)}")


def _offer(client: smtplib.SMTP, sender: str, recipients: Sequence[str]) -> None:
    """MAIL, RCPT and DATA up to the server's 354: anything failing here sent nothing."""
    try:
        client.ehlo_or_helo_if_needed()
        code, reply = client.mail(sender)
        if code != 250:
            _reset(client)
            raise NotSent(f"the server refused the sender {sender}: {code} {_text(reply)}")
        refused = []
        for recipient in recipients:
            code, reply = client.rcpt(recipient)
            if code not in (250, 251):
                refused.append(f"{recipient} ({code} {_text(reply)})")
        if refused:
            _reset(client)
            raise NotSent(f"the server refused the recipient(s) {', '.join(refused)}")
        client.putcmd("data")
        code, reply = client.getreply()
    except UnicodeEncodeError as error:
        _reset(client)
        raise NotSent(
            "an address has characters outside plain ASCII, which this server cannot be "
            "asked to carry"
        ) from error
    except (smtplib.SMTPException, OSError) as error:
        _reset(client)
        raise NotSent(_why(error)) from error
    if code != 354:
        _reset(client)
        raise NotSent(f"the server would not take the message: {code} {_text(reply)}")


def _dot_stuffed(message: bytes) -> bytes:
    """The message as DATA carries it: CRLF lines, leading dots doubled, ending CRLF.CRLF."""
    data = _LEADING_DOT.sub(b"..", _LINE_END.sub(b"\r\n", message))
    if not data.endswith(b"\r\n"):
        data += b"\r\n"
    return data + b".\r\n"


def _reset(client: smtplib.SMTP) -> None:
    with contextlib.suppress(smtplib.SMTPException, OSError):
        client.rset()


def _close(client: smtplib.SMTP | None) -> None:
    if client is not None:
        with contextlib.suppress(smtplib.SMTPException, OSError):
            client.close()


def _connection_problem(error: Exception, host: str, port: int) -> ConnectionProblem:
    if isinstance(error, socket.gaierror):
        return ConnectionProblem("dns", f"The name {host} could not be found ({error.strerror}).")
    if isinstance(error, ssl.SSLError):
        return tls.tls_problem(error, host)
    if isinstance(error, smtplib.SMTPAuthenticationError):
        return ConnectionProblem(
            "auth",
            f"{host} refused the user name or password ({error.smtp_code} "
            f"{_text(error.smtp_error)}). Check them; some providers need an app password.",
        )
    if isinstance(error, smtplib.SMTPNotSupportedError):
        return ConnectionProblem("capability", f"{host} does not support that: {error}")
    if isinstance(error, smtplib.SMTPServerDisconnected | OSError):
        return ConnectionProblem("tcp", f"{host} port {port} could not be reached: {_why(error)}")
    if isinstance(error, smtplib.SMTPException):
        return ConnectionProblem("tcp", f"{host} port {port} answered unexpectedly: {error}")
    raise error


def _why(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "the server stopped answering"
    if isinstance(error, smtplib.SMTPResponseException):
        return f"{error.smtp_code} {_text(error.smtp_error)}"
    return str(error) or type(error).__name__


def _text(reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    return " ".join(text.split())
