"""`Test connection` for a mail account: IMAP, then SMTP, naming the stage that failed.

A certificate the system does not trust is refused; the message then shows the certificate's
SHA-256 fingerprint, which the user may pin for that server (IMAP and SMTP each have their own)
if the server is theirs. Nothing is sent to a
server whose certificate was refused.
"""

from __future__ import annotations

import contextlib
import smtplib
from typing import Literal

from hearth import counted
from hearth.connectors.mail.errors import ConnectionProblem, UntrustedCertificate
from hearth.connectors.mail.imap import open_imap, presented_fingerprint
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.presets import Security
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.smtp import open_smtp, presented_smtp_fingerprint

Protocol = Literal["IMAP", "SMTP"]
PIN_SETTING: dict[Protocol, str] = {
    "IMAP": "imap_trusted_certificate",
    "SMTP": "smtp_trusted_certificate",
}


def check_connection(settings: MailSettings, password: str) -> str:
    """Log in to IMAP and SMTP; a summary, or `ConnectionProblem` saying which step failed."""
    if not settings.address:
        raise ConnectionProblem("settings", "enter your email address first")
    imap_host, smtp_host = settings.imap()[0], settings.smtp()[0]
    if not imap_host or not smtp_host:
        raise ConnectionProblem(
            "settings",
            f"Hearth has no preset for {settings.address.rpartition('@')[2]}; enter the IMAP "
            "and SMTP servers your provider names",
        )
    if not password:
        raise ConnectionProblem("settings", "enter the password (an app password is best)")
    try:
        with Mailbox(open_imap(settings, password)) as mailbox:
            folders = [f for f in mailbox.folders() if f.selectable]
    except ConnectionProblem as problem:
        raise _with_fingerprint(problem, "IMAP", settings.imap()) from None
    try:
        client = open_smtp(settings, password)
    except ConnectionProblem as problem:
        raise _with_fingerprint(problem, "SMTP", settings.smtp()) from None
    with contextlib.suppress(smtplib.SMTPException, OSError):
        client.quit()
    return (
        f"Connected: IMAP {imap_host} ({counted(len(folders), 'folder')}) and SMTP {smtp_host}, "
        "both over verified TLS."
    )


def presented(protocol: Protocol, server: tuple[str, int, Security]) -> str | None:
    """The SHA-256 fingerprint of the certificate the IMAP or SMTP server presents now."""
    read = presented_fingerprint if protocol == "IMAP" else presented_smtp_fingerprint
    return read(*server)


def _with_fingerprint(
    problem: ConnectionProblem, protocol: Protocol, server: tuple[str, int, Security]
) -> ConnectionProblem:
    host, port, _ = server
    text = f"{protocol} ({host}:{port}): {problem}"
    found = presented(protocol, server) if problem.stage == "tls" else None
    if not found:
        return ConnectionProblem(problem.stage, text)
    return UntrustedCertificate(text, setting=PIN_SETTING[protocol], fingerprint=found)
