"""The calendar tools on a real ICS file and a real Radicale account: recurrence, DST, the
preview's before/after and series-versus-occurrence wording, files kept whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import icalendar
import pytest
from pydantic_core import to_jsonable_python

from hearth import Tool
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.errors import CalendarError, EventNotFound
from hearth.connectors.calendar.ics import read_calendar
from hearth.connectors.evaluation.servers.radicale import RadicaleServer
from tests.connectors.calendar.kit import event_ics, server_calendar

YOGA = "yoga@other"
FILE = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another App//EN\r\nX-WR-CALNAME:Home\r\n"
    "BEGIN:VTODO\r\nUID:todo-1\r\nSUMMARY:Buy paint\r\nEND:VTODO\r\n"
    "BEGIN:VEVENT\r\nUID:yoga@other\r\nDTSTAMP:20261101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261123T180000\r\nDTEND;TZID=Europe/Berlin:20261123T190000\r\n"
    "RRULE:FREQ=WEEKLY;BYDAY=MO\r\nEXDATE;TZID=Europe/Berlin:20261207T180000\r\n"
    "SUMMARY:Yoga\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:yoga@other\r\nDTSTAMP:20261101T000000Z\r\n"
    "RECURRENCE-ID;TZID=Europe/Berlin:20261130T180000\r\n"
    "DTSTART;TZID=Europe/Berlin:20261130T193000\r\nDTEND;TZID=Europe/Berlin:20261130T203000\r\n"
    "SUMMARY:Yoga (late)\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)


def tools(connector: CalendarConnector) -> dict[str, Tool]:
    return {tool.name.removeprefix("calendar."): tool for tool in connector.tools}


def run(connector: CalendarConnector, name: str, **arguments: Any) -> Any:
    return to_jsonable_python(tools(connector)[name].invoke(arguments))


@pytest.fixture
def home(tmp_path: Path, connector: CalendarConnector) -> Path:
    path = tmp_path / "home.ics"
    path.write_bytes(FILE.encode())
    assert connector.library.add_file(path) == ["Home"]
    return path


@pytest.fixture(params=["ics", "caldav"])
def yoga(request: pytest.FixtureRequest, connector: CalendarConnector) -> str:
    """The yoga series in a local file ("Home") or on the Radicale account ("Personal")."""
    if request.param == "ics":
        request.getfixturevalue("home")
        return "Home"
    account = request.getfixturevalue("account")
    series = FILE.replace("X-WR-CALNAME:Home\r\n", "").replace(
        "BEGIN:VTODO\r\nUID:todo-1\r\nSUMMARY:Buy paint\r\nEND:VTODO\r\n", ""
    )
    server_calendar(account, "Personal").save_event(series)
    connector.library.refresh()
    return "Personal"


def test_recurrence_with_an_override_and_an_exdate(yoga: str, connector: CalendarConnector) -> None:
    listed = run(connector, "list_events", start="2026-11-23", end="2026-12-14")
    shown = [(event["title"], event["start"], event["calendar"]) for event in listed["events"]]
    assert shown == [
        ("Yoga", "2026-11-23T18:00", yoga),
        ("Yoga (late)", "2026-11-30T19:30", yoga),
        ("Yoga", "2026-12-14T18:00", yoga),
    ]
    assert all(event["occurrence"] for event in listed["events"])


def test_one_occurrence_versus_the_series(yoga: str, connector: CalendarConnector) -> None:
    [_, _, third] = run(connector, "list_events", start="2026-11-23", end="2026-12-14")["events"]
    update = tools(connector)["update_event"]
    one = {"calendar": yoga, "id": YOGA, "occurrence": third["occurrence"], "title": "Yin"}
    text = update.preview_text(one) or ""
    assert "Title: Yoga → Yin" in text
    assert "Only the occurrence on Mon 14 Dec 2026, 18:00–19:00 changes" in text
    assert "every week on Monday" in text
    series = {"calendar": yoga, "id": YOGA, "title": "Yin"}
    assert "The whole series (every week on Monday) changes." in (update.preview_text(series) or "")

    run(connector, **{"name": "update_event", **one})
    connector.library.refresh()
    listed = run(connector, "list_events", start="2026-12-14", end="2026-12-21")["events"]
    assert [event["title"] for event in listed] == ["Yin", "Yoga"]
    before = run(connector, "list_events", start="2026-11-23", end="2026-11-30")["events"]
    assert [event["title"] for event in before] == ["Yoga", "Yoga (late)"]


def test_the_file_keeps_what_hearth_did_not_touch(home: Path, connector: CalendarConnector) -> None:
    run(connector, "update_event", calendar="Home", id=YOGA, title="Yin")
    parsed = read_calendar(home.read_bytes(), where=str(home))
    assert parsed.problems == []
    # The other app's to-do and the calendar's name are still in the file.
    assert b"Buy paint" in home.read_bytes() and parsed.name == "Home"


def test_deleting_one_occurrence_and_undoing_it(yoga: str, connector: CalendarConnector) -> None:
    first = run(connector, "list_events", start="2026-11-23")["events"][0]
    delete = tools(connector)["delete_event"]
    arguments = {"calendar": yoga, "id": YOGA, "occurrence": first["occurrence"]}
    assert (delete.preview_text(arguments) or "").startswith("Delete one occurrence of 'Yoga'")
    result = delete.invoke(arguments)
    connector.library.refresh()
    assert run(connector, "list_events", start="2026-11-23")["events"] == []
    assert delete.undo is not None
    delete.undo(arguments, to_jsonable_python(result))
    connector.library.refresh()
    assert len(run(connector, "list_events", start="2026-11-23")["events"]) == 1


def test_a_change_naming_the_wrong_calendar_is_refused(
    home: Path, connector: CalendarConnector
) -> None:
    """A rule on one calendar must not let a change reach an event in another."""
    check = tools(connector)["update_event"].check
    assert check is not None
    with pytest.raises(CalendarError, match=r"Work"):
        check({"calendar": "Work", "id": YOGA, "title": "x"})
    with pytest.raises(EventNotFound):
        check({"calendar": "Home", "id": "nobody@else", "title": "x"})


def test_a_weekly_event_keeps_its_local_time_across_the_dst_week(
    account: RadicaleServer, connector: CalendarConnector
) -> None:
    work = server_calendar(account, "Work")
    work.save_event(
        event_ics(
            "weekly@other",
            "Review",
            "20261019T090000",
            "20261019T100000",
            "RRULE:FREQ=WEEKLY;COUNT=3\r\n",
        )
    )
    connector.library.refresh()
    listed = run(connector, "list_events", start="2026-10-19", end="2026-11-02")["events"]
    assert (
        [event["start"] for event in listed]
        == [
            "2026-10-19T09:00",
            "2026-10-26T09:00",  # Europe/Berlin left summer time on 25 October
            "2026-11-02T09:00",
        ][: len(listed)]
    )
    assert len(listed) == 3
    busy = run(connector, "free_busy", start="2026-10-26")["busy"]
    assert busy == [{"start": "2026-10-26T09:00", "end": "2026-10-26T10:00"}]


def test_a_created_event_is_written_in_the_users_zone(
    account: RadicaleServer, connector: CalendarConnector
) -> None:
    made = run(connector, "create_event", calendar="Work", title="Focus", start="2026-12-02T14:00")
    assert made["action"] == "created" and "queued" not in made
    stored = server_calendar(account, "Work").event_by_uid(made["id"])
    event = icalendar.Calendar.from_ical(stored.data).walk("VEVENT")[0]
    assert event["DTSTART"].params["TZID"] == "Europe/Berlin"
    assert event.decoded("DTSTART").hour == 14 and event.decoded("DTEND").hour == 15
