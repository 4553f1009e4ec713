"""Two real processes on one data folder, each with a call in flight: the window's path (run by
`live_window.py`; driving the real window would need a model and a click on a card, while the
call goes through the same `Assistant`, session and executor) and `hearth ask` with the SmolLM2
test model. Neither start takes the other's live call for an interrupted one; a SIGKILL leaves
only the killed process's call `unknown`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hearth.assistant import Assistant
from hearth.paths import data_dir, plugins_dir
from hearth.plugins.user_files import set_plugin_disabled
from hearth.store import open_database
from hearth.store.owners import lock_folder

ROOT = Path(__file__).resolve().parents[2]
HEARTH = Path(sys.executable).with_name("hearth")
BUILT_INS = ("files", "calendar", "mail", "system", "mcp", "evaluation")
START_TIMEOUT_S = 180.0
HOLDER = '''"""Holds a call open until the test lets it go."""

import os
import time
from pathlib import Path

from hearth import tool


@tool(effect="write")
def hold(note: str) -> str:
    """Keep a note for a while.

    Args:
        note: The note to keep.
    """
    folder = Path(os.environ["HEARTH_HOME"]) / "holds"
    (folder / f"started-{os.getpid()}").write_text(note, encoding="utf-8")
    while not (folder / f"release-{os.getpid()}").exists():
        time.sleep(0.05)
    return f"kept {note}"
'''


class Caller:
    """A process with one `hold` call: started, then held until `release()`."""

    def __init__(self, name: str, argv: list[str], home: Path) -> None:
        self.name, self.holds = name, home / "holds"
        self.log = home / f"{name}.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_until_holding(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not (self.holds / f"started-{self.pid}").exists():
            assert self.process.poll() is None, f"{self.name} ended: {self.output()}"
            assert time.monotonic() < deadline, f"{self.name} never called hold: {self.output()}"
            time.sleep(0.05)

    def release(self) -> str:
        (self.holds / f"release-{self.pid}").touch()
        assert self.process.wait(timeout=START_TIMEOUT_S) == 0, self.output()
        return self.output()

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        self.process.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def home(hearth_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The `hold` plugin installed and the built-ins off, so `--tool` can only call it."""
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    (plugins_dir() / "holder.py").write_text(HOLDER, encoding="utf-8")
    for name in BUILT_INS:
        set_plugin_disabled(name, True)
    (hearth_home / "holds").mkdir()
    return hearth_home


def start_window(home: Path) -> Caller:
    return Caller("window", [sys.executable, "-m", "tests.app.live_window"], home)


def start_ask(home: Path, test_gguf: Path) -> Caller:
    argv = [str(HEARTH), "ask", "--model", str(test_gguf), "--no-think", "--threads", "1"]
    argv += ["--tool", "--allow", "holder.hold", "--max-tokens", "32", "Keep the note 'milk'."]
    return Caller("ask", argv, home)


def calls() -> dict[int, tuple[str, list[str]]]:
    """Each process's `hold` call by pid: (intent state, audit outcomes in order)."""
    with open_database(data_dir() / "hearth.db") as db:
        found = {}
        for row in db.query("SELECT call_id, state, owner FROM intents ORDER BY id"):
            outcomes = db.query(
                "SELECT outcome FROM audit WHERE call_id = ? ORDER BY id", (row["call_id"],)
            )
            pid = int(row["owner"].split("-")[0])
            found[pid] = (row["state"], [r["outcome"] for r in outcomes])
        return found


def start_another() -> list[str]:
    """What the next start (a third process, this one) finds interrupted: the tools it names."""
    assistant = Assistant.open(entry_points=False, user_plugins=False, start_connectors=False)
    try:
        return [intent.tool for intent in assistant.unresolved]
    finally:
        assistant.close()


@pytest.mark.model
def test_the_window_and_hearth_ask_each_finish_their_own_call(home: Path, test_gguf: Path) -> None:
    window = start_window(home)
    window.wait_until_holding()
    ask = start_ask(home, test_gguf)  # starts, and recovers, while the window's call runs
    try:
        ask.wait_until_holding()
        assert start_another() == []
        assert calls() == {
            window.pid: ("intended", ["proposed"]),
            ask.pid: ("intended", ["proposed"]),
        }
        assert "ran executed" in window.release()
        assert "executed: " in ask.release()
    finally:
        for caller in (window, ask):
            if caller.process.poll() is None:
                caller.kill()
    assert calls() == {
        window.pid: ("executed", ["proposed", "executed"]),
        ask.pid: ("executed", ["proposed", "executed"]),
    }
    assert list(lock_folder(data_dir() / "hearth.db").iterdir()) == []


@pytest.mark.model
@pytest.mark.parametrize("killed", ["window", "ask"])
def test_a_killed_process_leaves_only_its_own_call_unknown(
    home: Path, test_gguf: Path, killed: str
) -> None:
    window = start_window(home)
    window.wait_until_holding()
    ask = start_ask(home, test_gguf)
    try:
        ask.wait_until_holding()
        victim, survivor = (window, ask) if killed == "window" else (ask, window)
        victim.kill()
        assert start_another() == ["holder.hold"]  # the next start: the killed one's call alone
        assert calls() == {
            victim.pid: ("unknown", ["proposed", "unknown"]),
            survivor.pid: ("intended", ["proposed"]),
        }
        survivor.release()
    finally:
        for caller in (window, ask):
            if caller.process.poll() is None:
                caller.kill()
    assert calls()[survivor.pid] == ("executed", ["proposed", "executed"])
    assert start_another() == ["holder.hold"]  # still waiting for the user, never retried
    assert list(lock_folder(data_dir() / "hearth.db").iterdir()) == []
