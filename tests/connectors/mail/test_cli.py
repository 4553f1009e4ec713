"""`hearth mail` as a user types it: connect, sync, list offline, and settle the outbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trustme
from click.testing import CliRunner

from hearth import SettingsStore, spaced_fingerprint
from hearth.cli.main import cli
from hearth.connectors.evaluation.servers.dovecot import (
    ADDRESS,
    PASSWORD,
    USER,
    DovecotServer,
    message,
)
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.cli import mail_commands
from hearth.connectors.mail.imap import presented_fingerprint
from hearth.connectors.mail.smtp import presented_smtp_fingerprint
from tests.connectors.mail.test_imap import distrust_the_test_ca
from tests.fixtures.spoofing import A_FEW, assert_safe

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
    assert secure_keyring.get("mail.password") == PASSWORD

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


# Python's email package refuses a header that holds U+2028 (it counts as a line break there).
@pytest.mark.parametrize("spoof", [spoof for spoof in A_FEW if "\u2028" not in spoof])
def test_a_subject_and_sender_are_shown_escaped(
    dovecot: DovecotServer, account: MailAccount, spoof: str
) -> None:
    dovecot.append("INBOX", message(spoof, sender=f"{spoof} <bob@example.com>"))
    commands = mail_commands(account)
    runner = CliRunner()
    # color: click would strip a spoof's ESC sequences from what is not a terminal
    assert runner.invoke(commands, ["sync"], color=True).exit_code == 0
    listed = runner.invoke(commands, ["list"], color=True)
    assert listed.exit_code == 0 and listed.output.startswith("* INBOX/1"), listed.output
    assert listed.output.count("\n") == 1
    assert_safe(listed.output, spoof, lines=True)


def test_connect_trusts_each_servers_own_certificate_by_fingerprint(
    dovecot: DovecotServer,
    secure_keyring: object,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    own = SmtpServer(trustme.CA(), "tls").start()
    try:
        distrust_the_test_ca(tmp_path, monkeypatch)
        imap_pin = presented_fingerprint(dovecot.host, dovecot.tls_port, "tls")
        smtp_pin = presented_smtp_fingerprint(own.host, own.port, "tls")
        assert imap_pin and smtp_pin
        base = [
            "mail", "connect", "--address", ADDRESS, "--username", USER,
            "--imap", f"{dovecot.host}:{dovecot.tls_port}", "--imap-security", "tls",
            "--smtp", f"{own.host}:{own.port}", "--smtp-security", "tls",
        ]  # fmt: skip
        runner = CliRunner()
        untrusted = runner.invoke(cli, base, input=f"{PASSWORD}\n")
        assert untrusted.exit_code == 1
        assert f"Its SHA-256 fingerprint is {spaced_fingerprint(imap_pin)}." in untrusted.output

        stranger = "ab" * 32
        wrong = runner.invoke(cli, [*base, "--trust", stranger], input=f"{PASSWORD}\n")
        assert wrong.exit_code == 2
        assert f"No server presents {spaced_fingerprint(stranger)}" in wrong.output
        assert f"IMAP presents {spaced_fingerprint(imap_pin)}" in wrong.output

        # Pasted as the error shows it (colons) and as a settings file holds it (plain hex).
        trusted = runner.invoke(
            cli,
            [*base, "--trust", spaced_fingerprint(imap_pin), "--trust", smtp_pin],
            input=f"{PASSWORD}\n",
        )
        assert trusted.exit_code == 0, trusted.output
        assert "Connected: IMAP" in trusted.output
        saved = json.loads((SettingsStore().path("mail")).read_text())
        assert (saved["imap_trusted_certificate"], saved["smtp_trusted_certificate"]) == (
            imap_pin,
            smtp_pin,
        )
    finally:
        own.stop()
