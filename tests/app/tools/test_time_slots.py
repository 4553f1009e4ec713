"""A tool's `slots` hook: what a consent card draws on its day view."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from hearth import Connector, TimeSlot, tool
from hearth.agent.steps import ConsentRequest
from hearth.consent import Verdict
from hearth.messages import ToolCall
from hearth.ruling import Reason

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)


class Diary(Connector):
    name = "diary"

    @tool(effect="write", scope="day", scope_kind="calendar", slots="moved")
    def move(self, day: str, hours: int) -> str:
        """Move the entry.

        Args:
            day: Which calendar.
            hours: How far to move it.
        """
        return "moved"

    def moved(self, arguments: Mapping[str, Any]) -> list[TimeSlot]:
        hours = int(arguments["hours"])  # raises for a call without hours
        later = NOON + timedelta(hours=hours)
        return [
            TimeSlot("Lunch", NOON, NOON + timedelta(hours=1), "before"),
            TimeSlot("Lunch", later, later + timedelta(hours=1), "after"),
        ]


def test_a_card_gets_the_slots_the_tool_draws() -> None:
    move = Diary().tools[0]
    arguments = {"day": "Work", "hours": 3}
    verdict = Verdict("ask", Reason.NEEDS_APPROVAL, "changing your data needs your approval")
    request = ConsentRequest.build(ToolCall("diary.move", arguments), move, arguments, verdict)
    assert [(slot.kind, slot.start.hour) for slot in request.slots] == [
        ("before", 12),
        ("after", 15),
    ]


def test_a_failing_hook_draws_nothing() -> None:
    move = Diary().tools[0]
    assert move.time_slots({"day": "Work"}) == ()
