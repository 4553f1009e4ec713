"""What Hearth could not read is said wherever the user or the model looks, and what real calendar
programs write is read: real files on disk, the real connector, store and `hearth calendar`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic_core import to_jsonable_python

from hearth.cli.main import cli
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.errors import BadCalendarData
from hearth.connectors.calendar.eventview import view
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.status import describe_state
from tests.connectors.calendar.kit import BERLIN

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another App//EN\r\nX-WR-CALNAME:Home\r\n"
GOOD = (
    "BEGIN:VEVENT\r\nUID:good\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261201T140000Z\r\n"
    "DTEND:20261201T150000Z\r\nSUMMARY:Plumber\r\nEND:VEVENT\r\n"
)
BROKEN = (  # starts on line 12 of the file
    "BEGIN:VEVENT\r\nUID:broken\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:2026-13-45\r\n"
    "SUMMARY:Dinner\r\nEND:VEVENT\r\n"
)
# Thunderbird writes a moved occurrence with both DTEND and DURATION.
THUNDERBIRD = (
    "BEGIN:VEVENT\r\nUID:standup@tb\r\nDTSTAMP:20261101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261130T090000\r\nDTEND;TZID=Europe/Berlin:20261130T093000\r\n"
    "RRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:standup@tb\r\nDTSTAMP:20261101T000000Z\r\n"
    "RECURRENCE-ID;TZID=Europe/Berlin:20261201T090000\r\n"
    "DTSTART;TZID=Europe/Berlin:20261201T110000\r\nDTEND;TZID=Europe/Berlin:20261201T113000\r\n"
    "DURATION:PT30M\r\nSUMMARY:Standup (moved)\r\nEND:VEVENT\r\n"
)
# A holiday from a date to a date-time, as some exports write it.
HOLIDAY = (
    "BEGIN:VEVENT\r\nUID:holiday@ex\r\nDTSTAMP:20261101T000000Z\r\nDTSTART;VALUE=DATE:20261123\r\n"
    "DTEND:20261217T000000Z\r\nSUMMARY:Holiday\r\nTRANSP:TRANSPARENT\r\nEND:VEVENT\r\n"
)
TAIL = "END:VCALENDAR\r\n"
CUT = HEAD + GOOD + "BEGIN:VEVENT\r\nUID:cut\r\nDTSTA"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """`hearth` as typed, with its plugin commands made afresh for this test's Hearth home."""
    monkeypatch.setattr(cli, "_plugin_commands", None)  # commands are cached per group
    return CliRunner()


def list_events(connector: CalendarConnector, start: str, end: str | None = None) -> Any:
    tool = next(t for t in connector.tools if t.name == "calendar.list_events")
    return to_jsonable_python(tool.invoke({"start": start, "end": end}))


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def test_what_thunderbird_and_date_to_time_exports_write_is_listed(
    tmp_path: Path, connector: CalendarConnector
) -> None:
    connector.library.add_file(write(tmp_path / "home.ics", HEAD + THUNDERBIRD + HOLIDAY + TAIL))
    listed = list_events(connector, "2026-12-01")
    shown = {(item["title"], item["start"], item["end"]) for item in listed["events"]}
    assert ("Standup (moved)", "2026-12-01T11:00", "2026-12-01T11:30") in shown
    assert ("Standup", "2026-12-01T09:00", "2026-12-01T09:30") not in shown
    assert ("Holiday", "2026-11-23T01:00", "2026-12-17T01:00") in shown  # midnight UTC to UTC
    assert "problems" not in listed and "note" not in listed
    [home] = connector.library.store.status()
    assert home.problems == () and connector.library.store.calendar("Home").writable


def test_a_date_to_time_event_can_be_shown_and_changed(tmp_path: Path) -> None:
    source = IcsFileSource(lambda: [write(tmp_path / "home.ics", HEAD + HOLIDAY + TAIL)])
    [home] = source.calendars()
    [holiday], problems = source.objects(home)
    assert problems == []
    shown = view(holiday.ics, BERLIN)
    assert shown.end - shown.start == timedelta(days=24)  # type: ignore[operator]


def test_a_broken_event_is_named_with_its_line_in_the_tool_result(
    tmp_path: Path, connector: CalendarConnector
) -> None:
    home = write(tmp_path / "home.ics", HEAD + GOOD + BROKEN + TAIL)
    connector.library.add_file(home)
    listed = list_events(connector, "2026-12-01")
    assert [item["title"] for item in listed["events"]] == ["Plumber"]
    assert listed["problems"] == [
        f"{home} line 12: VEVENT 'Dinner': not read: DTSTART: Expected datetime, date, or "
        "time. Got: '2026-13-45'"
    ]
    assert "could not be read" in listed["note"]


def test_the_status_line_says_what_was_not_read(
    tmp_path: Path, connector: CalendarConnector
) -> None:
    connector.library.add_file(write(tmp_path / "home.ics", HEAD + GOOD + BROKEN + TAIL))
    [state] = connector.library.store.status()
    line = describe_state(state, state.synced_at or 0)
    assert line.startswith("synced just now; 1 part not read, line 12: VEVENT 'Dinner'"), line
    assert "1 part not read, line 12" in (connector.status_line() or "")


def test_a_cut_short_file_is_an_error_never_an_empty_calendar(tmp_path: Path) -> None:
    source = IcsFileSource(lambda: [write(tmp_path / "home.ics", CUT)])
    [home] = source.calendars()
    with pytest.raises(BadCalendarData, match=r"home\.ics is cut short: it ends on line 14"):
        source.objects(home)


def test_a_file_cut_short_after_a_good_read_keeps_what_was_read_and_says_so(
    tmp_path: Path, connector: CalendarConnector
) -> None:
    library: CalendarLibrary = connector.library
    home = write(tmp_path / "home.ics", HEAD + GOOD + TAIL)
    library.add_file(home)
    write(home, CUT)  # another program is half-way through writing it
    library.refresh()
    listed = list_events(connector, "2026-12-01")
    assert [item["title"] for item in listed["events"]] == ["Plumber"]
    assert listed["problems"] == [
        f"Home: whole calendar: {home} is cut short: it ends on line 14, before END:VCALENDAR; "
        "Hearth reads it once it is whole"
    ]
    assert "not read now" in (connector.status_line() or "")


def test_the_cli_says_what_it_could_not_read(tmp_path: Path, runner: CliRunner) -> None:
    home = write(tmp_path / "home.ics", HEAD + GOOD + BROKEN + TAIL)
    added = runner.invoke(cli, ["calendar", "add-file", str(home)])
    assert added.exit_code == 0 and added.stdout == f"Added {home}: Home\n"
    assert f"{home} line 12: VEVENT 'Dinner': not read" in added.stderr
    listed = runner.invoke(cli, ["calendar", "events", "2026-12-01"])
    assert listed.exit_code == 0 and "Plumber  [Home]" in listed.stdout
    assert f"could not read: {home} line 12: VEVENT 'Dinner'" in listed.stderr
    shown = runner.invoke(cli, ["calendar", "list"])
    assert "synced just now; 1 part not read, line 12" in shown.stdout


def test_the_cli_refuses_a_cut_short_file_with_one_clear_line(
    tmp_path: Path, runner: CliRunner
) -> None:
    cut = write(tmp_path / "cut.ics", CUT)
    added = runner.invoke(cli, ["calendar", "add-file", str(cut)])
    assert added.exit_code == 1
    assert str(added.exception) == (
        f"{cut} is cut short: it ends on line 14, before END:VCALENDAR; "
        "Hearth reads it once it is whole"
    )
    listed = runner.invoke(cli, ["calendar", "events", "2026-12-01"])
    assert listed.stdout == "No events.\n"
    assert f"{cut} is cut short" in listed.stderr


def test_a_misspelled_last_end_is_read_as_the_calendars_end(tmp_path: Path) -> None:
    source = IcsFileSource(lambda: [write(tmp_path / "x.ics", HEAD + GOOD + "END:VCALENDARD\r\n")])
    [home] = source.calendars()
    objects, problems = source.objects(home)
    assert [obj.uid for obj in objects] == ["good"]
    assert [(p.line, p.message) for p in problems] == [
        (12, "END:VCALENDARD on line 12 is read as END:VCALENDAR")
    ]
    assert home.name == "Home" and not home.writable


def test_a_second_calendar_in_one_file_is_said(tmp_path: Path) -> None:
    text = HEAD + GOOD + TAIL + HEAD + HOLIDAY + TAIL
    source = IcsFileSource(lambda: [write(tmp_path / "x.ics", text)])
    [home] = source.calendars()
    objects, problems = source.objects(home)
    assert sorted(obj.uid for obj in objects) == ["good", "holiday@ex"]
    assert [(p.line, p.component) for p in problems] == [(13, "VCALENDAR")]
