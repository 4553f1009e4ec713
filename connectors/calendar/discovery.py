"""Checking a CalDAV account before it is saved, saying plainly what went wrong.

`check_connection` walks the stages a user can fix one by one: name, port, certificate,
password, calendars. Certificates are always verified; there is no insecure fallback.
"""

from __future__ import annotations

import socket
import ssl
from urllib.parse import urlsplit

from hearth.connectors.calendar.errors import CalendarError, ConnectionProblem, Offline
from hearth.connectors.calendar.objects import CalendarRef
from hearth.connectors.calendar.webdav import CertificateRejected, DavConnection, LoginFailed


def check_connection(
    url: str, username: str, password: str, *, timeout_s: float = 10.0
) -> list[CalendarRef]:
    """The account's calendars, or `ConnectionProblem` naming the first stage that failed.

    Stages: "dns" (the name), "tcp" (the port), "tls" (the certificate), "auth" (the login),
    "calendars" (logged in, but nothing to show).
    """
    connection = DavConnection(url, username, password, timeout_s=timeout_s)
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
    _check_port(host, port, timeout_s, secure=parts.scheme == "https")
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


def _check_port(host: str, port: int, timeout_s: float, *, secure: bool) -> None:
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as link:
            if secure:
                _check_certificate(link, host)
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


def _check_certificate(link: socket.socket, host: str) -> None:
    context = ssl.create_default_context()  # verifies the chain and the host name, always
    try:
        context.wrap_socket(link, server_hostname=host).close()
    except ssl.SSLCertVerificationError as untrusted:
        raise ConnectionProblem(
            "tls",
            f"The certificate of {host} could not be verified ({untrusted.verify_message}); "
            "Hearth will not connect insecurely, so ask the server's owner to fix it.",
        ) from untrusted
    except ssl.SSLError as broken:
        raise ConnectionProblem(
            "tls",
            f"A secure connection to {host} could not be set up ({broken.reason}); check that "
            "the address should start with https and uses the right port.",
        ) from broken
