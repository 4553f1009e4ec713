"""Plugins change while Hearth runs: reloads, the folder watcher, and turning plugins off and on."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hearth import Connector, hookimpl, tool
from hearth.assistant import Assistant
from hearth.paths import plugins_dir
from hearth.tools import DuplicateToolError, Tool, ToolRegistry
from tests.app.test_user_plugins import example_source, write_plugin

ECHO = '''
"""Says which version of the file is loaded."""
from hearth import tool


@tool(effect="read")
def version() -> str:
    """Which version this is."""
    return "{version}"
'''


@pytest.fixture
def assistant(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Assistant]:
    """User plugins allowed; the echo plugin at version 1 and the example notes plugin."""
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    monkeypatch.setenv("HEARTH_NOTES_DIR", str(tmp_path))
    write_plugin("echo.py", ECHO.format(version="v1"))
    write_plugin("notes.py", example_source())
    opened = Assistant.open(entry_points=False, start_connectors=False)
    yield opened
    opened.close()
    for name in [name for name in sys.modules if name.startswith("hearth_user_plugins.")]:
        del sys.modules[name]


def answer(assistant: Assistant, name: str) -> object:
    found = assistant.tools.get(name)
    return None if found is None else found.invoke({})


def states(assistant: Assistant) -> dict[str, str]:
    return {info.name: info.state for info in assistant.plugin_infos()}


def wait_until(
    condition: Callable[[], bool], changed: threading.Event, seconds: float = 10
) -> None:
    """Wait for the watcher's reloads (each sets `changed`) until `condition` holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the plugin folder watcher did not reload in time"
        changed.wait(0.2)
        changed.clear()


def test_an_edited_file_is_reloaded_by_the_watcher(assistant: Assistant) -> None:
    changed = threading.Event()
    assistant.watch_plugins(changed.set)
    assert answer(assistant, "echo.version") == "v1"
    write_plugin("echo.py", ECHO.format(version="v2"))
    wait_until(lambda: answer(assistant, "echo.version") == "v2", changed)
    write_plugin("later.py", ECHO.format(version="new"))
    wait_until(lambda: answer(assistant, "later.version") == "new", changed)
    (plugins_dir() / "later.py").unlink()
    wait_until(lambda: "later" not in states(assistant), changed)
    assert assistant.tools.get("later.version") is None
    assert answer(assistant, "echo.version") == "v2"


def test_close_stops_the_watcher() -> None:
    assistant = Assistant.open(entry_points=False, start_connectors=False)
    assistant.watch_plugins()
    assert any(t.name == "hearth-plugin-watch" for t in threading.enumerate())
    assistant.close()
    assert not any(t.name == "hearth-plugin-watch" for t in threading.enumerate())


def test_a_file_that_breaks_fails_alone_and_a_fixed_one_comes_back(assistant: Assistant) -> None:
    write_plugin("echo.py", 'raise RuntimeError("half-way through an edit")\n')
    infos = {info.name: info for info in assistant.reload_plugins()}
    assert infos["echo"].state == "failed"
    assert infos["echo"].error == "RuntimeError: half-way through an edit"
    assert 'raise RuntimeError("half-way through an edit")' in infos["echo"].details
    assert assistant.tools.get("echo.version") is None
    assert assistant.plugins.connector("echo") is None
    assert infos["notes"].state == "loaded" and assistant.tools.get("notes.read") is not None
    write_plugin("echo.py", ECHO.format(version="v3"))
    assert states(assistant) == {"echo": "failed", "notes": "loaded"}
    assistant.reload_plugins()
    assert states(assistant) == {"echo": "loaded", "notes": "loaded"}
    assert answer(assistant, "echo.version") == "v3"
    assert [f.plugin for f in assistant.plugin_failures()] == []


def test_reloading_an_unchanged_file_does_not_clash_with_itself(assistant: Assistant) -> None:
    before = [tool.name for tool in assistant.tools]
    for _ in range(3):
        assistant.reload_plugins()
    assert states(assistant) == {"echo": "loaded", "notes": "loaded"}
    assert sorted(tool.name for tool in assistant.tools) == sorted(before)
    assert [c.name for c in assistant.connectors()] == ["echo", "notes"]


def test_a_new_version_that_clashes_leaves_nothing_half_registered(assistant: Assistant) -> None:
    clash = '''
    from hearth import hookimpl, tool

    @tool(effect="read", name="echo.fresh")
    def fresh() -> str:
        """A new tool."""
        return "fresh"

    @tool(effect="read", name="notes.read")
    def taken() -> str:
        """Takes a name another plugin has."""
        return "clash"

    @hookimpl
    def register_tools(register):
        register(fresh)
        register(taken)
    '''
    write_plugin("echo.py", clash)
    infos = {info.name: info for info in assistant.reload_plugins()}
    assert infos["echo"].error == "PluginError: tool name 'notes.read' is already taken"
    names = {tool.name for tool in assistant.tools}
    assert not names & {"echo.version", "echo.fresh"}
    assert "notes.read" in names and assistant.tools.get("notes.read").connector == "notes"  # type: ignore[union-attr]


class Recorder(Connector):
    name, title, description = "recorder", "Recorder", "Records what happens to it."

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    @tool(effect="read")
    def events_so_far(self) -> list[str]:
        """What happened so far."""
        return list(self.events)

    def start(self) -> None:
        self.events.append("start")

    def stop(self) -> None:
        self.events.append("stop")


class RecorderPlugin:
    def __init__(self) -> None:
        self.connector = Recorder()

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(self.connector)


def test_turning_a_plugin_off_takes_its_tools_and_connectors_away_now() -> None:
    plugin = RecorderPlugin()
    running = Assistant.open(plugins=[plugin], entry_points=False, user_plugins=False)
    try:
        recorder = plugin.connector
        assert recorder.events == ["start"]
        off = running.set_plugin_enabled("RecorderPlugin", False)
        assert (off.state, off.source, off.tools) == ("disabled", "given", ())
        assert recorder.events == ["start", "stop"]
        assert running.tools.get("recorder.events_so_far") is None
        assert running.permissions.tools() == [] and running.permissions.connectors() == []
        on = running.set_plugin_enabled("RecorderPlugin", True)
        assert (on.state, on.tools) == ("loaded", ("recorder.events_so_far",))
        assert recorder.events == ["start", "stop", "start"]
        assert running.permissions.connectors() == [recorder]
        with pytest.raises(Exception, match="no plugin called 'nope'"):
            running.set_plugin_enabled("nope", False)
    finally:
        running.close()
    assert recorder.events[-1] == "stop"


def test_the_registry_swaps_all_or_nothing() -> None:
    @tool(effect="read", name="a.one")
    def one() -> str:
        """One."""
        return "1"

    @tool(effect="read", name="b.two")
    def two() -> str:
        """Two."""
        return "2"

    registry = ToolRegistry([one])
    with pytest.raises(DuplicateToolError):
        registry.replace((), [two, one])
    assert [t.name for t in registry] == ["a.one"]
    registry.replace(["a.one"], [one, two])
    assert [t.name for t in registry] == ["a.one", "b.two"]
    assert registry.remove("a.one") is one and registry.remove("a.one") is None
    assert isinstance(registry.get("b.two"), Tool)
