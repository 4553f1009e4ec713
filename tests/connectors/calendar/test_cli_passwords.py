"""`hearth calendar` on a computer without a keyring, run as separate commands, as in a
terminal: the password is used for the run it was given in, Hearth's own store keeps it once
made, and a command that lacks it says so and fails, never a silent success."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.main import cli
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from hearth.secrets import Place, Secrets, shared_secrets
from tests.connectors.calendar.kit import server_calendar

pytestmark = pytest.mark.server
STORE_PASSWORD = "correct horse battery"
HINT = "`hearth calendar --ask-password sync`"
STANDUP = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Hearth tests//EN
BEGIN:VEVENT
UID:standup-1
DTSTART:20261207T090000Z
DTEND:20261207T093000Z
SUMMARY:Standup
END:VEVENT
END:VCALENDAR
"""


def hearth(*args: str, typed: str = "") -> subprocess.CompletedProcess[str]:
    """`hearth ARGS` as its own process, with `typed` on a standard input that is no terminal."""
    program = Path(sys.executable).with_name("hearth")
    return subprocess.run(
        [str(program), *args], input=typed, capture_output=True, text=True, timeout=120
    )


def test_without_a_keyring_the_password_lasts_one_run_and_a_run_without_it_fails(
    radicale: RadicaleServer, hearth_home: Path
) -> None:
    server_calendar(radicale, "Work").save_event(STANDUP)
    connected = hearth("calendar", "connect", radicale.url, "--user", USER, typed=PASSWORD)
    assert connected.returncode == 0, connected.stderr
    assert "Connected: Work" in connected.stdout
    assert "this computer has no keyring" in connected.stdout
    assert "It is used for this run only" in connected.stdout
    assert "Work: synced just now" in connected.stdout

    synced = hearth("calendar", "sync")
    assert synced.returncode == 1
    assert f"The CalDAV password for {USER} is not known this session" in synced.stderr
    assert HINT in synced.stderr
    # The account is out of reach, not gone: its calendar stays, offline, and answers.
    assert "Work: synced just now; offline (The CalDAV password" in synced.stdout
    listed = hearth("calendar", "events", "2026-12-07", "2026-12-07")
    assert "Standup  [Work]" in listed.stdout, listed.stderr

    asked = hearth("calendar", "--ask-password", "sync", typed=f"{PASSWORD}\n")
    assert asked.returncode == 0, asked.stderr
    assert "Work: synced just now" in asked.stdout
    for path in [p for p in hearth_home.rglob("*") if p.is_file()]:
        assert PASSWORD.encode() not in path.read_bytes(), path


def test_hearths_own_store_is_offered_made_and_unlocked_in_the_terminal(
    radicale: RadicaleServer, hearth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server_calendar(radicale, "Work")
    monkeypatch.setattr("hearth.secrets.terminal.interactive", lambda: True)
    connected = CliRunner().invoke(
        cli,
        ["calendar", "connect", radicale.url, "--user", USER],
        input=f"{PASSWORD}\ny\n{STORE_PASSWORD}\n{STORE_PASSWORD}\n",
    )
    assert connected.exit_code == 0, connected.output
    assert "This computer has no keyring" in connected.output
    assert "Passwords are kept in Hearth's own encrypted store (unlocked)." in connected.output
    secrets = shared_secrets()
    assert secrets.place is Place.VAULT
    assert secrets.vault.path == hearth_home / "data" / "secrets.hearth"
    later = Secrets(secrets.vault.path, system=None)  # the next start of Hearth
    later.unlock(STORE_PASSWORD)
    assert later.get("calendar.password") == PASSWORD

    # With no terminal to ask on, a locked store is a clear failure, not a prompt or a 130.
    locked = hearth("calendar", "sync")
    assert locked.returncode == 1
    assert "Hearth's password store is locked" in locked.stderr
    assert "EOFError" not in locked.stderr and "Aborted" not in locked.stderr


def test_passwords_status_and_create(hearth_home: Path) -> None:
    status = hearth("passwords", "status")
    assert status.returncode == 0
    assert status.stdout.startswith("This computer has no keyring")
    Secrets(hearth_home / "data" / "secrets.hearth", system=None).create_store(STORE_PASSWORD)
    status = hearth("passwords", "status")
    assert "Hearth's own encrypted store (locked)" in status.stdout
    assert str(hearth_home / "data" / "secrets.hearth") in status.stdout
    again = hearth("passwords", "create")
    assert again.returncode == 1 and "already exists" in again.stderr


def test_a_piped_password_brings_no_echo_warning(radicale: RadicaleServer) -> None:
    # getpass, given a pipe, warns that the password "may be echoed": noise for a script.
    server_calendar(radicale, "Work")
    connected = hearth("calendar", "connect", radicale.url, "--user", USER, typed=f"{PASSWORD}\n")
    assert connected.returncode == 0
    assert "Warning" not in connected.stderr and "echo" not in connected.stderr
    made = hearth("passwords", "create", typed="a new store password\n")
    assert made.returncode == 0 and made.stderr == ""
    assert "Made Hearth's password store" in made.stdout
