"""A Hearth killed in the middle of a system change: the next one knows the old value and
undo puts it back, or says nothing changed. Never retried by itself.

The child (`python -m tests.connectors.system.test_crash ...`) runs one turn that sets the
brightness of a sysfs-like backlight folder with the real connector, and kills itself with
SIGKILL at a chosen point: after the old value was journalled but before the write, or after the
write but before the read-back. The parent then opens the same database as the next Hearth.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.agent import AgentConfig, AllowOnce
from hearth.assistant import Assistant
from hearth.connectors.system import linux_backlight
from hearth.connectors.system.connector import SystemConnector
from hearth.connectors.system.linux_backlight import SysfsBrightness
from hearth.connectors.system.machine import Machine
from hearth.store import open_database
from tests.app.agent.kit import drive
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.mail.test_wifi_recovery import Plugin
from tests.connectors.system.desktop_fixtures import make_backlight

REPO = Path(__file__).parents[3]


def open_assistant(root: Path, model: ScriptedModel) -> Assistant:
    system = SystemConnector(Machine([SysfsBrightness(root / "backlight")]))
    return Assistant.open(
        model,
        database=open_database(root / "hearth.db"),
        plugins=[Plugin(system)],
        entry_points=False,
        start_connectors=False,
    )


def child(root: str, when: str) -> None:
    """Set the brightness to 20%, dying `when` ("before-write" or "after-write")."""
    real = linux_backlight.SysfsBrightness.write

    def dying(self: SysfsBrightness, value: int | bool) -> None:
        if when == "after-write":
            real(self, value)
        os.kill(os.getpid(), signal.SIGKILL)

    linux_backlight.SysfsBrightness.write = dying  # type: ignore[method-assign]
    replies = [Reply(calls=[("system.set_brightness", {"level": 20})]), Reply("Done.")]
    assistant = open_assistant(Path(root), ScriptedModel(replies))
    session = assistant.session(config=AgentConfig(tool_budget=100_000))
    drive(session.run_turn("Dim the screen"), lambda _: AllowOnce())


def brightness(root: Path) -> str:
    return (root / "backlight" / "intel_backlight" / "brightness").read_text().strip()


@pytest.mark.parametrize(
    ("when", "written", "undone"),
    [
        ("after-write", "48000", "the brightness is 50% again"),
        ("before-write", "120000", "the brightness is already 50%"),
    ],
)
def test_a_change_killed_midway_is_undone_from_its_journal(
    tmp_path: Path, when: str, written: str, undone: str
) -> None:
    make_backlight(tmp_path / "backlight", "intel_backlight", 120000, 240000)
    command = [sys.executable, "-m", "tests.connectors.system.test_crash", str(tmp_path), when]
    died = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert died.returncode == -signal.SIGKILL, died.stderr
    assert brightness(tmp_path) == written

    assistant = open_assistant(tmp_path, ScriptedModel([]))
    try:
        (entry,) = assistant.undoable()
        assert entry.result == {"changed": [{"setting": "brightness", "before": 50, "after": 20}]}
        audit = [row.outcome for row in assistant.audit.entries(call_id=entry.call_id)]
        assert audit == ["proposed", "unknown"]  # nobody knows whether it happened; no retry
        assert brightness(tmp_path) == written
        assert assistant.undo(entry.call_id).summary == undone
        assert brightness(tmp_path) == "120000"
    finally:
        assistant.close()


if __name__ == "__main__":
    child(*sys.argv[1:])
