"""`hearth calendar` as a user types it: a file added, an account connected, events listed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.main import cli
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.connectors.calendar.kit import event_ics, server_calendar

pytestmark = pytest.mark.server


def test_a_file_and_an_account_then_events_offline(
    tmp_path: Path, radicale: RadicaleServer, secure_keyring: object
) -> None:
    home = tmp_path / "home.ics"
    home.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Demo//EN\r\nX-WR-CALNAME:Home\r\n"
        + event_ics("plumber@demo", "Call the plumber", "20261201T150000", "20261201T160000").split(
            "VERSION:2.0\r\nPRODID:-//Other//Client//EN\r\n", 1
        )[1]
    )
    server_calendar(radicale, "Work").save_event(
        event_ics("review@other", "Review", "20261201T090000", "20261201T100000")
    )
    runner = CliRunner()
    added = runner.invoke(cli, ["calendar", "add-file", str(home)])
    assert added.exit_code == 0 and "Added" in added.output and "Home" in added.output
    connected = runner.invoke(
        cli, ["calendar", "connect", radicale.url, "--user", USER], input=f"{PASSWORD}\n"
    )
    assert connected.exit_code == 0, connected.output
    assert "Connected: Work" in connected.output
    assert secure_keyring.get("calendar.password") == PASSWORD

    radicale.stop()
    listed = runner.invoke(cli, ["calendar", "events", "2026-12-01"])
    assert listed.exit_code == 0, listed.output
    assert "Review  [Work]" in listed.output and "Call the plumber  [Home]" in listed.output
    synced = runner.invoke(cli, ["calendar", "sync"])
    assert "Work: synced" in synced.output and "offline" in synced.output
    assert "Home: synced just now" in synced.output


def test_a_wrong_password_says_so_and_saves_nothing(
    radicale: RadicaleServer, secure_keyring: object
) -> None:
    result = CliRunner().invoke(
        cli, ["calendar", "connect", radicale.url, "--user", USER], input="wrong\n"
    )
    assert result.exit_code != 0  # `hearth` prints the error; CliRunner keeps it
    assert "check the user name and password" in str(result.exception)
    assert secure_keyring.get("calendar.password") is None
