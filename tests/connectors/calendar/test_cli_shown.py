"""`hearth calendar` shows calendar names, titles, file names and what it could not read through
`hearth.shown`, and `hearth calendar status` says what was left out, with its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hearth.cli.main import cli
from tests.fixtures.spoofing import A_FEW, assert_safe

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another App//EN\r\nX-WR-CALNAME:{name}\r\n"
GOOD = (
    "BEGIN:VEVENT\r\nUID:good\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261201T140000Z\r\n"
    "DTEND:20261201T150000Z\r\nSUMMARY:{title}\r\nEND:VEVENT\r\n"
)
NO_START = (  # starts on line 12 of the file
    "BEGIN:VEVENT\r\nUID:broken\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:{title}\r\nEND:VEVENT\r\n"
)
TAIL = "END:VCALENDAR\r\n"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """`hearth` as typed, with its plugin commands made afresh for this test's Hearth home."""
    monkeypatch.setattr(cli, "_plugin_commands", None)  # commands are cached per group
    return CliRunner()


def ics_text(value: str) -> str:
    """`value` as an iCalendar TEXT value."""
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")


def write_calendar(path: Path, name: str, title: str, *, broken: bool = True) -> Path:
    """A calendar of one event, and with `broken` one more that has no DTSTART (on line 12)."""
    text = HEAD.format(name=ics_text(name)) + GOOD.format(title=ics_text(title))
    text += NO_START.format(title=ics_text(title)) if broken else ""
    path.write_bytes((text + TAIL).encode())
    return path


def calendar(runner: CliRunner, *arguments: str) -> Result:
    """`hearth calendar ARGUMENTS`, ANSI sequences kept: click strips them when not a terminal."""
    return runner.invoke(cli, ["calendar", *arguments], color=True)


@pytest.mark.parametrize("spoof", A_FEW)
def test_names_titles_files_and_problems_are_shown_escaped(
    tmp_path: Path, runner: CliRunner, spoof: str
) -> None:
    home = write_calendar(tmp_path / f"{spoof}.ics", spoof, spoof)
    gone = write_calendar(tmp_path / f"gone {spoof}.ics", "Gone", "Gone")
    added = calendar(runner, "add-file", str(home))
    assert added.exit_code == 0, added.output
    assert calendar(runner, "add-file", str(gone)).exit_code == 0
    gone.unlink()
    for command in (["list"], ["events", "2026-12-01"], ["status"]):
        done = calendar(runner, *command)
        assert done.exit_code == 0, done.output
        assert_safe(done.output, spoof, lines=True)
    assert_safe(added.output, spoof, lines=True)
    removed = calendar(runner, "remove-file", str(home))
    assert_safe(removed.output, spoof, lines=True)


def test_status_says_the_summary_then_each_part_not_read_with_its_line(
    tmp_path: Path, runner: CliRunner
) -> None:
    home = write_calendar(tmp_path / "home.ics", "Home", "Dinner")
    gone = write_calendar(tmp_path / "gone.ics", "Gone", "Gone", broken=False)
    assert calendar(runner, "add-file", str(home)).exit_code == 0
    assert calendar(runner, "add-file", str(gone)).exit_code == 0
    gone.unlink()
    done = calendar(runner, "status")
    assert done.exit_code == 0, done.output
    summary, *rest = done.stdout.splitlines()
    assert summary.startswith(("Gone, Home: synced just now", "Home, Gone: synced just now"))
    assert "Home: 1 part not read, line 12: VEVENT 'Dinner': " in summary
    assert summary.endswith(f"; not found: {gone}")
    [problem] = [line for line in rest if line.startswith("could not read: ")]
    assert problem.startswith(f"could not read: {home} line 12: VEVENT 'Dinner': ")
    assert "DTSTART" in problem
    assert f"not found: {gone} (added, but not there now)" in rest


def test_status_without_calendars_says_how_to_add_one(runner: CliRunner) -> None:
    done = calendar(runner, "status")
    assert done.exit_code == 0 and done.stdout.startswith("No calendars yet.")
