"""The consent card's day view, fed by the real calendar connector over a real .ics file: a move
from Thursday to Friday drawn on two days, the events already there, words for screen readers."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from hearth.agent.steps import ConsentRequest
from hearth.assistant import Assistant
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.consent import Verdict
from hearth.messages import ToolCall
from hearth.ruling import Reason
from hearth.ui import theme
from hearth.ui.chat.day_view import DayView, hour_range
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.calendar.conftest import connector, library  # noqa: F401 (fixtures)
from tests.connectors.calendar.kit import CalendarPlugin
from tests.ui.chat.kit import Desk, Harness, open_window
from tests.ui.conftest import save_screenshot

LEFT = Qt.MouseButton.LeftButton
DENTIST, STANDUP, REVIEW = "dentist@home", "standup@home", "review@home"
MOVE = {"calendar": "Home", "id": DENTIST, "start": "2026-12-04T15:00"}
MOVED = (
    "Dentist moves from Thu 3 Dec 10:00–11:00 to Fri 4 Dec 15:00–16:00; "
    "busy: Standup 09:30–09:45, Design review with the whole product team 15:30–16:30"
)


def event(uid: str, title: str, start: str, end: str) -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261101T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        f"SUMMARY:{title}\r\nEND:VEVENT\r\n"
    )


HOME = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another App//EN\r\nX-WR-CALNAME:Home\r\n"
    + event(DENTIST, "Dentist", "20261203T100000", "20261203T110000")
    + event(STANDUP, "Standup", "20261204T093000", "20261204T094500")
    + event(
        REVIEW, "Design review with the whole product team", "20261204T153000", "20261204T163000"
    )
    + "END:VCALENDAR\r\n"
)


@pytest.fixture
def home(tmp_path: Path, connector: CalendarConnector) -> CalendarConnector:  # noqa: F811
    path = tmp_path / "home.ics"
    path.write_bytes(HOME.encode())
    assert connector.library.add_file(path) == ["Home"]
    return connector


def request_for(calendar: CalendarConnector, name: str, arguments: dict[str, Any]) -> Any:
    tool = next(item for item in calendar.tools if item.name == f"calendar.{name}")
    verdict = Verdict("ask", Reason.NEEDS_APPROVAL, "changing your data needs your approval")
    return ConsentRequest.build(ToolCall(tool.name, arguments), tool, arguments, verdict)


@pytest.fixture
def calendar_harness(qtbot: Any, home: CalendarConnector) -> Iterator[Harness]:
    replies = [
        Reply(calls=[("calendar.list_events", {"start": "2026-12-03", "end": "2026-12-05"})]),
        Reply(calls=[("calendar.update_event", MOVE)]),
        Reply(text="I left the dentist where it was."),
    ]
    assistant = Assistant.open(
        ScriptedModel(replies),
        plugins=[CalendarPlugin(home)],
        entry_points=False,
        start_connectors=False,
    )
    try:
        yield from open_window(qtbot, assistant, Desk())
    finally:
        assistant.close()


def test_a_move_card_draws_both_days_light_and_dark(calendar_harness: Harness, qtbot: Any) -> None:
    listing = calendar_harness.send_and_wait_for_card("What is on Thursday and Friday?")
    assert not listing.day_view.isVisible()  # a read draws nothing: it moves no time
    with qtbot.waitSignal(calendar_harness.controller.consent_did_ask, timeout=10_000) as asked:
        qtbot.mouseClick(listing.allow_once, LEFT)
    qtbot.waitUntil(lambda: calendar_harness.chat.view.card(asked.args[0]) is not None)
    card = calendar_harness.card(asked.args[0])
    assert "Change 'Dentist' in Home:" in card.preview.text()
    view = card.day_view
    assert view.isVisible() and view.height() <= 180
    assert [(slot.kind, slot.label) for slot in view.slots] == [
        ("busy", "Standup"),
        ("busy", "Design review with the whole product team"),
        ("before", "Dentist"),
        ("after", "Dentist"),
    ]
    assert view.days == [date(2026, 12, 3), date(2026, 12, 4)]
    assert view.accessibleName() == "Day view"
    assert view.accessibleDescription() == MOVED
    assert view.toolTip() == MOVED
    app = QApplication.instance()
    try:
        for name in ("light", "dark"):
            theme.apply_theme(app, theme.DARK if name == "dark" else theme.LIGHT)
            calendar_harness.window.refresh_icons()
            qtbot.wait(100)
            calendar_harness.chat.view.show_card(card.entry.call_id)
            save_screenshot(calendar_harness.window, f"calendar_move_card_{name}")
            save_screenshot(view, f"calendar_day_view_{name}")
    finally:
        theme.apply_theme(app, theme.LIGHT)
    qtbot.mouseClick(card.deny, LEFT)
    calendar_harness.wait_for_turn_end()
    assert card.entry.outcome == "denied"
    assert_dentist_unmoved(calendar_harness)


def assert_dentist_unmoved(harness: Harness) -> None:
    """The Dentist is still on Thursday in the store: a denied move changed nothing."""
    calendar = next(c for c in harness.assistant.connectors() if c.name == "calendar")
    assert isinstance(calendar, CalendarConnector)
    stored = [obj.ics for obj in calendar.library.store.objects("Home") if DENTIST in obj.ics]
    assert len(stored) == 1 and "DTSTART;TZID=Europe/Berlin:20261203T100000" in stored[0]


def test_a_new_event_and_a_deleted_one_in_words(qtbot: Any, home: CalendarConnector) -> None:
    create = {"calendar": "Home", "title": "Haircut", "start": "2026-12-04T09:00"}
    created = request_for(home, "create_event", create)
    assert [slot.kind for slot in created.slots] == ["busy", "busy", "after"]
    view = DayView()
    qtbot.addWidget(view)
    view.show_slots(created.slots)
    assert view.accessibleDescription() == (
        "New: Haircut, Fri 4 Dec 09:00–10:00; busy: Standup 09:30–09:45, "
        "Design review with the whole product team 15:30–16:30"
    )
    # From an hour before the Haircut to an hour after the review ends (16:30): 08 to 18.
    assert hour_range(created.slots) == (8, 18)

    deleted = request_for(home, "delete_event", {"calendar": "Home", "id": DENTIST})
    view.show_slots(deleted.slots)
    assert view.days == [date(2026, 12, 3)]
    assert view.accessibleDescription() == "Dentist is removed from Thu 3 Dec 10:00–11:00"
    assert hour_range(deleted.slots) == (9, 13)  # 09 to 12 is widened to four hours


def test_a_narrow_card_elides_instead_of_overlapping(qtbot: Any, home: CalendarConnector) -> None:
    request = request_for(home, "update_event", MOVE)
    view = DayView()
    qtbot.addWidget(view)
    view.show_slots(request.slots)
    view.resize(view.minimumWidth(), view.height())
    view.show()
    qtbot.waitExposed(view)
    assert view.accessibleDescription() == MOVED
    assert save_screenshot(view, "calendar_day_view_narrow").exists()
