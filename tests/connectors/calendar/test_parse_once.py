"""A calendar file is parsed once per version: not twice per sync, not again while unchanged.

Parses are counted where the file source parses a file (`file_snapshots.read_calendar`, the
real function, wrapped to count the files it is given).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hearth.connectors.calendar import file_snapshots
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.ics import ParsedCalendar
from tests.connectors.calendar.test_store import event, write_calendar
from tests.connectors.calendar.test_tools import run


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where the file source parsed calendar text, one entry per parse."""
    seen: list[str] = []
    parse = file_snapshots.read_calendar

    def counted(data: bytes | str, *, where: str, time_limit_s: float = 5.0) -> ParsedCalendar:
        seen.append(where)
        return parse(data, where=where, time_limit_s=time_limit_s)

    monkeypatch.setattr(file_snapshots, "read_calendar", counted)
    return seen


def test_a_file_is_parsed_once_per_version(
    tmp_path: Path, connector: CalendarConnector, parses: list[str]
) -> None:
    home = tmp_path / "home.ics"
    write_calendar(home, "Home", {"dentist": "Dentist", "party": "Party"})
    library = connector.library

    library.add_file(home)  # its first sync: the name, then the events, of one parse
    assert parses == [str(home)]
    library.refresh()
    library.refresh()
    listed = run(connector, "list_events", start="2026-01-01", end="2026-01-31")
    run(connector, "free_busy", start="2026-01-05")
    assert [item["title"] for item in listed["events"]] == ["Dentist", "Party"]
    assert parses == [str(home)]  # unchanged: not parsed again

    library.store.put("Home", "gym", event("gym", "Gym", day=9), expected_etag=None)
    assert parses == [str(home)] * 2  # the new text, checked before it replaced the file
    library.refresh()
    assert parses == [str(home)] * 2  # ... and that parse is the one the sync uses

    write_calendar(home, "Home", {"dentist": "Dentist at 10", "party": "Party"})
    library.refresh()
    listed = run(connector, "list_events", start="2026-01-01", end="2026-01-31")
    assert [item["title"] for item in listed["events"]] == ["Dentist at 10", "Party"]
    assert parses == [str(home)] * 3  # changed by another app: parsed once more


def test_a_file_that_is_no_calendar_is_read_again_only_once_it_changes(
    tmp_path: Path, connector: CalendarConnector, parses: list[Any]
) -> None:
    broken = tmp_path / "broken.ics"
    broken.write_text("this is no calendar\n")
    connector.library.add_file(tmp_path)
    connector.library.refresh()
    assert parses == [str(broken)]
    [state] = connector.library.store.status()
    assert not state.online and "not an iCalendar file" in str(state.error)
