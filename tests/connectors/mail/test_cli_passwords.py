"""`hearth mail` on a computer without a keyring, each command its own process as in a
terminal: the password lasts the run it was typed in, `status` never asks for one, and a
command that needs it and lacks it fails, naming a command that exists."""

from __future__ import annotations

import pytest

from hearth.connectors.evaluation.servers.dovecot import ADDRESS, PASSWORD, USER, DovecotServer
from hearth.connectors.evaluation.servers.dovecot import message as mail_message
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from tests.connectors.calendar.test_cli_passwords import hearth

pytestmark = pytest.mark.server


def test_without_a_keyring_the_password_lasts_one_run(
    dovecot: DovecotServer, smtp_server: SmtpServer
) -> None:
    dovecot.append("INBOX", mail_message("Quarterly report"))
    connected = hearth(
        "mail", "connect", "--address", ADDRESS, "--username", USER,
        "--imap", f"{dovecot.host}:{dovecot.tls_port}", "--imap-security", "tls",
        "--smtp", f"{smtp_server.host}:{smtp_server.port}", "--smtp-security", "tls",
        typed=f"{PASSWORD}\n",
    )  # fmt: skip
    assert connected.returncode == 0, connected.stderr
    assert "It is used for this run only" in connected.stdout
    assert "Connected: IMAP" in connected.stdout

    status = hearth("mail", "status")
    assert status.returncode == 0, status.stderr
    assert status.stdout.startswith(ADDRESS) and status.stderr == ""

    synced = hearth("mail", "sync")
    assert synced.returncode == 1
    assert "the mail password is not known this session" in synced.stderr
    assert "`hearth mail --ask-password sync`" in synced.stderr

    # Asked only when a password is needed, and a missing one is an error, never a 130.
    quiet = hearth("mail", "--ask-password", "status")
    assert quiet.returncode == 0 and quiet.stderr == ""
    empty = hearth("mail", "--ask-password", "sync")
    assert empty.returncode == 1
    assert "the mail password is needed: type it in a terminal, or pipe it" in empty.stderr
    assert "Aborted" not in empty.stderr and "Warning" not in empty.stderr

    asked = hearth("mail", "--ask-password", "sync", typed=f"{PASSWORD}\n")
    assert asked.returncode == 0, asked.stderr
    assert "INBOX: 1 new" in asked.stdout
