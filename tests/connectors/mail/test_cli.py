"""`hearth mail` as a user types it: connect, sync, list offline, and settle the outbox."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hearth.cli.main import cli
from hearth.connectors.evaluation.servers.dovecot import (
    ADDRESS,
    PASSWORD,
    USER,
    DovecotServer,
    message,
)
from hearth.connectors.evaluation.servers.smtp import SmtpServer

pytestmark = pytest.mark.server


def test_connect_sync_list_offline_and_the_outbox(
    dovecot: DovecotServer, smtp_server: SmtpServer, secure_keyring: object
) -> None:
    dovecot.append("INBOX", message("Quarterly report", sender="Bob <bob@example.com>"))
    runner = CliRunner()
    connected = runner.invoke(
        cli,
        [
            "mail", "connect", "--address", ADDRESS, "--username", USER,
            "--imap", f"{dovecot.host}:{dovecot.tls_port}", "--imap-security", "tls",
            "--smtp", f"{smtp_server.host}:{smtp_server.port}", "--smtp-security", "tls",
        ],
        input=f"{PASSWORD}\n",
    )  # fmt: skip
    assert connected.exit_code == 0, connected.output
    assert "Connected: IMAP" in connected.output and "verified TLS" in connected.output
    assert secure_keyring.get_password("hearth", "mail.password") == PASSWORD  # type: ignore[attr-defined]

    synced = runner.invoke(cli, ["mail", "sync"])
    assert synced.exit_code == 0 and "INBOX: 1 new" in synced.output
    dovecot.stop()
    listed = runner.invoke(cli, ["mail", "list"])
    assert listed.exit_code == 0
    assert (
        "* INBOX/1" in listed.output and "Bob <bob@example.com>: Quarterly report" in listed.output
    )
    assert "The outbox is empty." in runner.invoke(cli, ["mail", "outbox"]).output
    status = runner.invoke(cli, ["mail", "status"]).output
    assert status.startswith(ADDRESS)


def test_a_wrong_password_says_which_step_failed(
    dovecot: DovecotServer, smtp_server: SmtpServer, secure_keyring: object
) -> None:
    done = CliRunner().invoke(
        cli,
        ["mail", "connect", "--address", ADDRESS, "--username", USER,
         "--imap", f"{dovecot.host}:{dovecot.tls_port}", "--smtp", f"127.0.0.1:{smtp_server.port}"],
        input="wrong\n",
    )  # fmt: skip
    assert done.exit_code == 1
    assert "refused the user name or password" in done.output
