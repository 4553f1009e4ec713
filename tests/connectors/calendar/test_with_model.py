"""The calendar connector driven by the real SmolLM2 model through the whole agent path."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.agent import (
    AgentConfig,
    AllowOnce,
    Answer,
    CallMalformed,
    ConsentAsked,
    Deny,
    ToolRan,
    TurnDone,
)
from hearth.agent.executor import MALFORMED_NAME
from hearth.assistant import Assistant
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.engine.llama import LlamaCppModel
from hearth.generation import GenerationSettings
from tests.app.agent.kit import drive, fixed_clock, of
from tests.connectors.calendar.kit import CalendarPlugin

pytestmark = pytest.mark.model

DIARY = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Demo//EN\r\nX-WR-CALNAME:Home\r\n"
    "BEGIN:VEVENT\r\nUID:dentist@demo\r\nDTSTAMP:20261101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261203T100000\r\nDTEND;TZID=Europe/Berlin:20261203T110000\r\n"
    "SUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_real_model_reads_the_calendar_and_changes_nothing_unasked(
    smol: LlamaCppModel, connector: CalendarConnector, tmp_path: Path
) -> None:
    diary = tmp_path / "home.ics"
    diary.write_bytes(DIARY.encode())
    connector.library.add_file(diary)
    assistant = Assistant.open(smol, plugins=[CalendarPlugin(connector)], entry_points=False)
    settings = GenerationSettings(max_tokens=160, seed=5, temperature=0.2)
    session = assistant.session(
        config=AgentConfig(settings=settings, max_steps=3, clock=fixed_clock)
    )

    def reads_only(step: ConsentAsked) -> Answer:
        tool = step.request.tool
        return AllowOnce() if tool.effect == "read" else Deny("this test only reads")

    try:
        steps = drive(
            session.run_turn("What is on my calendar on Thursday?", tool_choice="required"),
            reads_only,
        )
        assert isinstance(steps[-1], TurnDone), steps[-1]
        # A 135M model may call any offered tool, or botch the call; each one is on the record.
        runs = of(steps, ToolRan)
        assert runs or of(steps, CallMalformed)
        for run in runs:
            assert run.call.name.startswith("calendar.") or run.call.name == MALFORMED_NAME
            rows = assistant.audit.entries(call_id=run.call.id)
            assert rows and rows[0].tool == run.call.name
            print(run.call.name, run.call.arguments, run.outcome, run.observation[:200])
    finally:
        assistant.db.close()  # the session's model is shared; only the store is closed
    # Whatever the model tried, changes were denied and the file is as it was.
    assert diary.read_bytes() == DIARY.encode()
