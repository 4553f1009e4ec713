"""Connecting to the IMAP server: TLS always, the pinned certificate checked before the password.

`open_imap` speaks implicit TLS or STARTTLS; STARTTLS, when chosen, is required, so a server
that does not offer it is refused rather than spoken to in plain text. A pinned certificate is
compared right after the handshake and before LOGIN. Every failure becomes a
`ConnectionProblem` whose `stage` says where it went wrong (dns, tcp, tls, auth, capability),
worded for the user. During normal use (`for_use=True`) a server that cannot be reached at all
(dns, tcp) raises `Offline` instead, so callers fall back to the cache.
"""

from __future__ import annotations

import contextlib
import socket
import ssl

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from hearth.connectors.mail.errors import ConnectionProblem, Offline
from hearth.connectors.mail.presets import Security
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.tls import check_pin, client_context, fingerprint, tls_problem

__all__ = ["open_imap", "presented_fingerprint"]


def open_imap(
    settings: MailSettings, password: str, *, timeout: float = 20.0, for_use: bool = False
) -> IMAPClient:
    """A logged-in client for the account, or `ConnectionProblem` (`Offline` with `for_use`)."""
    host, port, security = settings.imap()
    if not host:
        raise ConnectionProblem("settings", "no IMAP server is set for this account")
    try:
        client = _connect(host, port, security, settings.imap_trusted_certificate, timeout)
    except ConnectionProblem as problem:
        if for_use and problem.stage in ("dns", "tcp"):
            raise Offline(str(problem)) from problem
        raise
    try:
        _login(client, host, settings.login, password)
        _require_capabilities(client, host)
    except BaseException:
        _close(client)
        raise
    return client


def _connect(host: str, port: int, security: Security, pinned: str, timeout: float) -> IMAPClient:
    """A TLS connection whose certificate passed (the system store or the pin); not logged in."""
    context = client_context(pinned)
    where = f"{host}:{port}"
    try:
        client = IMAPClient(host, port, ssl=security == "tls", ssl_context=context, timeout=timeout)
    except socket.gaierror as error:
        raise ConnectionProblem(
            "dns", f"the server name {host} could not be found ({error.strerror})"
        ) from error
    except ssl.SSLError as error:
        raise tls_problem(error, host) from error
    except TimeoutError as error:
        raise ConnectionProblem("tcp", f"{where} did not answer in {timeout:g} seconds") from error
    except OSError as error:
        raise ConnectionProblem("tcp", f"could not connect to {where}: {_why(error)}") from error
    except IMAPClientError as error:
        raise ConnectionProblem("tcp", f"{where} did not answer like an IMAP server") from error
    try:
        if security == "starttls":
            _start_tls(client, host, context)
        check_pin(client.socket(), pinned, host)
    except BaseException:
        _close(client)
        raise
    return client


def _start_tls(client: IMAPClient, host: str, context: ssl.SSLContext) -> None:
    if not client.has_capability("STARTTLS"):
        raise ConnectionProblem(
            "tls",
            f"{host} does not offer STARTTLS on this port, so Hearth will not send your password "
            "to it; try the port for TLS (usually 993)",
        )
    try:
        client.starttls(context)
    except ssl.SSLError as error:
        raise tls_problem(error, host) from error
    except (OSError, IMAPClientError) as error:
        raise ConnectionProblem("tls", f"STARTTLS with {host} failed: {error}") from error


def _login(client: IMAPClient, host: str, user: str, password: str) -> None:
    try:
        client.login(user, password)
    except LoginError as error:
        if "[UNAVAILABLE]" in str(error):  # RFC 5530: the server could not check it just now
            raise ConnectionProblem(
                "auth", f"{host} could not check the password just now; try again in a moment"
            ) from error
        raise ConnectionProblem(
            "auth",
            f"{host} refused the user name or password for {user}. If your provider uses app "
            "passwords, make one and use it here.",
        ) from error
    except (OSError, IMAPClientError) as error:
        raise ConnectionProblem("auth", f"logging in to {host} failed: {error}") from error


def _require_capabilities(client: IMAPClient, host: str) -> None:
    capabilities = set(client.capabilities())
    if not capabilities & {b"IMAP4REV1", b"IMAP4REV2"}:
        raise ConnectionProblem("capability", f"{host} does not speak IMAP4rev1")
    if not capabilities & {b"MOVE", b"UIDPLUS"}:
        raise ConnectionProblem(
            "capability",
            f"{host} supports neither MOVE nor UIDPLUS; without them deleting one message "
            "could erase others another mail program marked deleted, so Hearth will not use it",
        )


def presented_fingerprint(
    host: str, port: int, security: Security, *, timeout: float = 10.0
) -> str | None:
    """The SHA-256 of the certificate `host` presents, to show the user what they would pin.

    Verification is off for this one connection ONLY to read the certificate: it never logs in
    and sends nothing but STARTTLS (when that is the security). None if it cannot be read.
    """
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        if security == "tls":
            with (
                socket.create_connection((host, port), timeout=timeout) as raw,
                context.wrap_socket(raw, server_hostname=host) as wrapped,
            ):
                certificate = wrapped.getpeercert(binary_form=True)
        else:
            client = IMAPClient(host, port, ssl=False, timeout=timeout)
            try:
                client.starttls(context)
                sock = client.socket()
                certificate = (
                    sock.getpeercert(binary_form=True) if isinstance(sock, ssl.SSLSocket) else None
                )
            finally:
                _close(client)
    except (OSError, IMAPClientError):
        return None
    return fingerprint(certificate) if certificate else None


def _close(client: IMAPClient) -> None:
    """Drop the connection without a word more to the server (no LOGOUT)."""
    with contextlib.suppress(OSError):
        client.shutdown()


def _why(error: OSError) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "nothing is listening there (connection refused)"
    return error.strerror or str(error)
