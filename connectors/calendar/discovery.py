"""Checking a CalDAV account before it is saved, saying plainly what went wrong.

`check_connection` walks the stages a user can fix one by one: name, port, certificate,
password, calendars. Certificates are always verified; there is no insecure fallback.
"""

from __future__ import annotations

import hashlib
import socket
import ssl
from urllib.parse import urlsplit

from hearth.connectors.calendar.errors import (
    CalendarError,
    ConnectionProblem,
    Offline,
    UntrustedCertificate,
)
from hearth.connectors.calendar.objects import CalendarRef
from hearth.connectors.calendar.webdav import CertificateRejected, DavConnection, LoginFailed


def check_connection(
    url: str, username: str, password: str, *, pinned: str = "", timeout_s: float = 10.0
) -> list[CalendarRef]:
    """The account's calendars, or `ConnectionProblem` naming the first stage that failed.

    Stages: "dns" (the name), "tcp" (the port), "tls" (the certificate, or the one `pinned`
    by its SHA-256 fingerprint), "auth" (the login), "calendars" (logged in, nothing to show).
    A certificate the computer does not trust is `UntrustedCertificate`, with its fingerprint.
    """
    connection = DavConnection(url, username, password, timeout_s=timeout_s, pinned=pinned)
    parts = urlsplit(connection.url)
    try:
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        host = None
    if not host or parts.scheme not in ("http", "https"):
        raise ConnectionProblem(
            "dns", f"'{url}' is not a server address; type it like https://calendar.example.com/."
        )
    _check_name(host, port)
    _check_port(host, port, timeout_s, secure=parts.scheme == "https", pinned=pinned)
    try:
        calendars = connection.calendars()
    except LoginFailed as refused:
        raise ConnectionProblem("auth", str(refused)) from refused
    except CertificateRejected as insecure:
        raise ConnectionProblem("tls", str(insecure)) from insecure
    except Offline as unreachable:
        raise ConnectionProblem("tcp", str(unreachable)) from unreachable
    except CalendarError as missing:
        raise ConnectionProblem("calendars", str(missing)) from missing
    if not calendars:
        raise ConnectionProblem(
            "calendars",
            f"You are logged in to {host}, but this account has no calendars yet; create one "
            "with your calendar provider's app or web page, then try again.",
        )
    return calendars


def _check_name(host: str, port: int) -> None:
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as unknown:
        raise ConnectionProblem(
            "dns",
            f"The server name '{host}' could not be found; check the address for typos and "
            "that this computer is online.",
        ) from unknown


def _check_port(host: str, port: int, timeout_s: float, *, secure: bool, pinned: str) -> None:
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as link:
            if secure:
                _check_certificate(link, host, port, pinned)
    except ConnectionRefusedError as refused:
        raise ConnectionProblem(
            "tcp",
            f"{host} refused the connection on port {port}; check the port in the address and "
            "that the calendar server is running.",
        ) from refused
    except TimeoutError as silent:
        raise ConnectionProblem(
            "tcp",
            f"{host} did not answer on port {port} within {timeout_s:g} seconds; check the "
            "address, your network connection and any firewall.",
        ) from silent
    except OSError as unreachable:
        raise ConnectionProblem(
            "tcp",
            f"{host} could not be reached on port {port} ({unreachable.strerror or unreachable}); "
            "check your network connection.",
        ) from unreachable


def _check_certificate(link: socket.socket, host: str, port: int, pinned: str) -> None:
    context = ssl.create_default_context()  # verifies the chain and the host name, unless pinned
    if pinned:
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with context.wrap_socket(link, server_hostname=host) as secured:
            certificate = secured.getpeercert(binary_form=True) or b""
    except ssl.SSLCertVerificationError as untrusted:
        refusal = (
            f"The certificate of {host} could not be verified ({untrusted.verify_message}); "
            "Hearth will not connect insecurely. If this is your own server, trust its "
            "certificate by its SHA-256 fingerprint in the settings."
        )
        found = presented_fingerprint(host, port)
        if found:
            raise UntrustedCertificate(refusal, found) from untrusted
        raise ConnectionProblem("tls", refusal) from untrusted
    except ssl.SSLError as broken:
        raise ConnectionProblem(
            "tls",
            f"A secure connection to {host} could not be set up ({broken.reason}); check that "
            "the address should start with https and uses the right port.",
        ) from broken
    if pinned and hashlib.sha256(certificate).hexdigest() != pinned:
        raise ConnectionProblem(
            "tls",
            f"The certificate of {host} is not the one you trusted; no password was sent. If "
            "the server really changed its certificate, trust the new fingerprint in the settings.",
        )


def presented_fingerprint(host: str, port: int, *, timeout_s: float = 10.0) -> str | None:
    """The SHA-256 of the certificate `host` presents, to show the user what they would pin.

    Verification is off for this one connection ONLY to read the certificate: nothing is sent
    over it. None when it cannot be read.
    """
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with (
            socket.create_connection((host, port), timeout=timeout_s) as raw,
            context.wrap_socket(raw, server_hostname=host) as secured,
        ):
            certificate = secured.getpeercert(binary_form=True)
    except OSError:
        return None
    return hashlib.sha256(certificate).hexdigest() if certificate else None
