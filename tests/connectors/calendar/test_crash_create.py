"""A Hearth killed while creating an event in an ICS file: the next one can undo the create.

The child (`python -m tests.connectors.calendar.test_crash_create ...`) runs one turn in which a
scripted model creates an event in a real calendar file through the real connector, and kills
itself with SIGKILL just before the file is replaced, or just after, before Hearth kept its own
record of the change. The parent then opens the same database as the next Hearth would: the call
is `unknown`, and its undo removes the event if it reached the file, or says it never did.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from hearth import SettingsStore, UndoFailed
from hearth.agent import AgentConfig, AllowOnce
from hearth.assistant import Assistant
from hearth.connectors.calendar import atomic
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.store import open_database
from tests.app.agent.kit import drive
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.calendar.kit import BERLIN, CalendarPlugin

REPO = Path(__file__).parents[3]
HOME = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another App//EN\r\nX-WR-CALNAME:Home\r\n"
    "BEGIN:VEVENT\r\nUID:plumber@other\r\nDTSTAMP:20261101T000000Z\r\n"
    "DTSTART:20261201T140000Z\r\nDTEND:20261201T150000Z\r\nSUMMARY:Plumber\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)
CREATE = {"calendar": "Home", "title": "Dentist", "start": "2026-12-03T10:00"}


def open_library(root: Path) -> CalendarLibrary:
    """The calendars on `root`, as each process opens them: the same settings and cache."""
    return CalendarLibrary(
        SettingsStore(root / "connectors"),
        root / "calendar-cache.sqlite",
        today=lambda: date(2026, 12, 1),
        now=lambda: datetime(2026, 12, 1, 9, 0, tzinfo=BERLIN),
    )


def open_assistant(root: Path, model: ScriptedModel) -> Assistant:
    """Hearth on `root`, as each process opens it: the same database, settings and files."""
    connector = CalendarConnector(open_library(root), ChangeLog(root / "changes.sqlite"))
    return Assistant.open(
        model,
        database=open_database(root / "hearth.db"),
        plugins=[CalendarPlugin(connector)],
        entry_points=False,
        start_connectors=False,
    )


def child(root: str, when: str) -> None:
    """Create the dentist appointment, dying `when` ("before-write" or "after-write")."""
    real = atomic.write_atomically

    def dying(path: Path, data: bytes, **options: Any) -> None:
        if when == "after-write":
            real(path, data, **options)
        os.kill(os.getpid(), signal.SIGKILL)

    atomic.write_atomically = dying  # type: ignore[assignment]
    replies = [Reply(calls=[("calendar.create_event", CREATE)]), Reply("Done.")]
    assistant = open_assistant(Path(root), ScriptedModel(replies))
    session = assistant.session(config=AgentConfig(tool_budget=100_000))
    drive(session.run_turn("Dentist on Thursday at 10"), lambda _: AllowOnce())


def killed_while_creating(root: Path, when: str) -> Path:
    """The calendar file after a child was killed creating an event in it."""
    path = root / "home.ics"
    path.write_bytes(HOME.encode())
    settings = CalendarSettings(time_zone="Europe/Berlin", ics_files=[str(path)])
    SettingsStore(root / "connectors").save("calendar", settings)
    synced = open_library(root)  # the file was synced once before, as at any start
    synced.refresh()
    synced.store.close()
    command = [sys.executable, "-m", "tests.connectors.calendar.test_crash_create", str(root), when]
    environment = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    died = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=120, env=environment
    )
    assert died.returncode == -signal.SIGKILL, died.stdout + died.stderr
    return path


@pytest.mark.parametrize(
    ("when", "undone"),
    [
        ("after-write", "Removed 'Dentist'"),
        ("before-write", "'Dentist' never reached Home; nothing to remove"),
    ],
)
def test_a_create_killed_midway_is_undone_from_its_journal(
    tmp_path: Path, secure_keyring: object, when: str, undone: str
) -> None:
    path = killed_while_creating(tmp_path, when)
    assert ("SUMMARY:Dentist" in path.read_text()) == (when == "after-write")

    assistant = open_assistant(tmp_path, ScriptedModel([]))
    try:
        (entry,) = assistant.undoable()
        assert entry.state == "unknown"
        audit = [row.outcome for row in assistant.audit.entries(call_id=entry.call_id)]
        assert audit == ["proposed", "unknown"]  # nobody knows whether it happened; no retry
        assert assistant.undo(entry.call_id).summary == undone
        after = path.read_bytes().decode()
        assert "Dentist" not in after
        # Every byte before stays; a create's time zone definition is left, as any undo leaves it.
        assert after.startswith(HOME.removesuffix("END:VCALENDAR\r\n"))
        assert after.endswith("END:VCALENDAR\r\n")
    finally:
        assistant.close()


def test_an_event_changed_since_the_kill_is_left_alone(
    tmp_path: Path, secure_keyring: object
) -> None:
    path = killed_while_creating(tmp_path, "after-write")
    edited = path.read_text().replace("SUMMARY:Dentist", "SUMMARY:Dentist (Dr Weiss)")
    path.write_bytes(edited.encode())

    assistant = open_assistant(tmp_path, ScriptedModel([]))
    try:
        (entry,) = assistant.undoable()
        with pytest.raises(UndoFailed, match="'Dentist' was changed since; nothing was removed"):
            assistant.undo(entry.call_id)
        assert path.read_text() == edited
    finally:
        assistant.close()


if __name__ == "__main__":
    child(*sys.argv[1:])
