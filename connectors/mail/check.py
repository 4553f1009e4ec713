"""`Test connection` for a mail account: IMAP, then SMTP, naming the stage that failed.

A certificate the system does not trust is refused; the message then shows the certificate's
SHA-256 fingerprint, which the user may pin if the server is theirs. Nothing is sent to a
server whose certificate was refused.
"""

from __future__ import annotations

import contextlib
import smtplib

from hearth.connectors.mail.errors import ConnectionProblem
from hearth.connectors.mail.imap import open_imap, presented_fingerprint
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.smtp import open_smtp
from hearth.connectors.mail.tls import spaced


def check_connection(settings: MailSettings, password: str) -> str:
    """Log in to IMAP and SMTP; a summary, or `ConnectionProblem` saying which step failed."""
    if not settings.address:
        raise ConnectionProblem("settings", "enter your email address first")
    imap_host, imap_port, imap_security = settings.imap()
    smtp_host, smtp_port, _ = settings.smtp()
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
        raise _with_fingerprint(problem, "IMAP", imap_host, imap_port, imap_security) from None
    try:
        client = open_smtp(settings, password)
    except ConnectionProblem as problem:
        raise ConnectionProblem(
            problem.stage, f"SMTP ({smtp_host}:{smtp_port}): {problem}"
        ) from None
    with contextlib.suppress(smtplib.SMTPException, OSError):
        client.quit()
    return (
        f"Connected: IMAP {imap_host} ({len(folders)} folders) and SMTP {smtp_host}, "
        "both over verified TLS."
    )


def _with_fingerprint(
    problem: ConnectionProblem, protocol: str, host: str, port: int, security: str
) -> ConnectionProblem:
    text = f"{protocol} ({host}:{port}): {problem}"
    if problem.stage == "tls":
        found = presented_fingerprint(host, port, security)  # type: ignore[arg-type]
        if found:
            text += f" Its SHA-256 fingerprint is {spaced(found)}."
    return ConnectionProblem(problem.stage, text)
