"""User plugin files: the example notes plugin through the real gate, bare-tool files, broken
files, turning plugins off and on, and safe mode."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from hearth import hookimpl
from hearth.agent import AgentConfig, AllowOnce, ConsentAsked, Deny, ToolRan
from hearth.assistant import Assistant
from hearth.consent import Rule
from hearth.messages import CancelToken
from hearth.paths import config_dir, plugins_dir
from hearth.plugins.loading import SAFE_MODE_REASON
from hearth.tools import Tool, tool
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.app.agent.turns import results

Turn = Callable[..., tuple[Assistant, list[Any]]]

BARE_TOOLS = '''
"""Weather for a city.

Made up, but always sunny."""
from hearth import tool


@tool(effect="read")
def today(city: str) -> str:
    """Today's weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@tool(effect="read", name="my_weather.tomorrow")
def tomorrow(city: str) -> str:
    """Tomorrow's weather.

    Args:
        city: The city.
    """
    return f"rain in {city}"
'''


def example_source() -> str:
    """The example plugin exactly as `hearth plugins example` prints it."""
    return files("hearth.resources").joinpath("examples/notes.py").read_text(encoding="utf-8")


def write_plugin(name: str, source: str) -> Path:
    path = plugins_dir() / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """User plugins allowed, the example installed as notes.py, and a notes folder."""
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    folder = tmp_path / "Notes"
    folder.mkdir()
    (folder / "shopping.md").write_text("# Shopping\n- oat milk\n- bread\n", encoding="utf-8")
    monkeypatch.setenv("HEARTH_NOTES_DIR", str(folder))
    write_plugin("notes.py", example_source())
    yield folder
    for name in [name for name in sys.modules if name.startswith("hearth_user_plugins.")]:
        del sys.modules[name]


@contextmanager
def user_turns() -> Iterator[Turn]:
    """Like `tests.app.agent.turns.scripted_turns`, with the plugins from the plugins folder."""
    opened: list[Assistant] = []

    def run(
        *calls: tuple[str, dict[str, Any]],
        answer: Callable[[ConsentAsked], Any] | None = None,
        rules: tuple[tuple[str, str | None], ...] = (),
    ) -> tuple[Assistant, list[Any]]:
        replies: list[Any] = [Reply(calls=[call]) for call in calls] + [Reply(text="Done.")]
        assistant = Assistant.open(
            ScriptedModel(replies), entry_points=False, start_connectors=False
        )
        opened.append(assistant)
        for name, scope in rules:
            assistant.allow(Rule.create(name, "allow", now=time.time(), scope=scope))
        session = assistant.session(config=AgentConfig(tool_budget=100_000))
        steps = drive(session.run_turn("Notes?", CancelToken()), answer or (lambda _: AllowOnce()))
        return assistant, steps

    try:
        yield run
    finally:
        for assistant in opened:
            assistant.close()


@pytest.fixture
def turn(notes: Path) -> Iterator[Turn]:
    with user_turns() as run:
        yield run


def test_the_example_plugin_appears_as_the_notes_connector(notes: Path) -> None:
    assistant = Assistant.open(entry_points=False, start_connectors=False)
    try:
        info = next(info for info in assistant.plugin_infos() if info.name == "notes")
        assert (info.source, info.state, info.error) == ("user", "loaded", "")
        assert info.location == str(plugins_dir() / "notes.py")
        assert info.tools == ("notes.list", "notes.search", "notes.read", "notes.write")
        assert info.connectors == ("notes",)
        [connector] = assistant.connectors()
        assert (connector.name, connector.title) == ("notes", "Notes")
        assert [t.name for t in assistant.permissions.connector_tools(connector)] == list(
            info.tools
        )
        assert assistant.permissions.connector_pattern(connector) == "notes.*"
    finally:
        assistant.close()


def test_reading_a_note_asks_until_a_rule_covers_the_folder(notes: Path, turn: Turn) -> None:
    note = str(notes / "shopping.md")
    _, steps = turn(("notes.read", {"path": note}))
    [asked] = of(steps, ConsentAsked)
    assert asked.request.tool.name == "notes.read"
    assert "oat milk" in results(steps)[0]["text"]
    _, steps = turn(("notes.read", {"path": note}), rules=(("notes.read", str(notes)),))
    assert of(steps, ConsentAsked) == []
    assert "oat milk" in results(steps)[0]["text"]
    _, steps = turn(
        ("notes.search", {"words": "MILK", "folder": str(notes)}),
        rules=(("notes.search", str(notes)),),
    )
    assert results(steps) == [{"matches": [{"path": note, "line": 2, "text": "- oat milk"}]}]


def test_a_denied_write_leaves_the_note_as_it_was(notes: Path, turn: Turn) -> None:
    note = notes / "shopping.md"
    before = note.read_text(encoding="utf-8")
    _, steps = turn(
        ("notes.write", {"path": str(note), "text": "gone"}),
        answer=lambda _: Deny(),
    )
    [asked] = of(steps, ConsentAsked)
    assert asked.request.tool.effect == "write"
    assert asked.request.preview.startswith(f"Replace the text of {note}:")
    assert [ran.outcome for ran in of(steps, ToolRan)] == ["denied"]
    assert note.read_text(encoding="utf-8") == before


def test_an_allowed_write_changes_the_note_and_undo_puts_it_back(notes: Path, turn: Turn) -> None:
    note = notes / "shopping.md"
    before = note.read_text(encoding="utf-8")
    assistant, steps = turn(("notes.write", {"path": str(note), "text": "# Shopping\n- tea\n"}))
    assert len(of(steps, ConsentAsked)) == 1
    assert note.read_text(encoding="utf-8") == "# Shopping\n- tea\n"
    [entry] = assistant.undoable()
    assert "put back the previous text" in assistant.undo(entry.call_id).summary
    assert note.read_text(encoding="utf-8") == before


def test_undoing_a_new_note_removes_it(notes: Path, turn: Turn) -> None:
    note = notes / "ideas.md"
    assistant, _ = turn(("notes.write", {"path": str(note), "text": "- a plugin page\n"}))
    assert note.read_text(encoding="utf-8") == "- a plugin page\n"
    assistant.undo(assistant.undoable()[0].call_id)
    assert not note.exists()


def test_a_note_outside_the_folder_is_refused(notes: Path, turn: Turn, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    _, steps = turn(("notes.write", {"path": str(outside), "text": "x"}))
    [ran] = of(steps, ToolRan)
    assert ran.outcome == "failed" and "outside the notes folder" in ran.observation
    assert not outside.exists()


def test_a_file_of_bare_tools_is_a_connector_named_after_it(notes: Path) -> None:
    write_plugin("My-Weather.py", BARE_TOOLS)
    assistant = Assistant.open(entry_points=False, start_connectors=False)
    try:
        weather = assistant.plugins.connector("my_weather")
        assert weather is not None
        assert weather.description == "Weather for a city."
        tools = [t.name for t in assistant.tools.by_connector("my_weather")]
        assert tools == ["my_weather.today", "my_weather.tomorrow"]
        today = assistant.tools.get("my_weather.today")
        assert today is not None and today.invoke({"city": "Oslo"}) == "sunny in Oslo"
    finally:
        assistant.close()


def test_a_broken_file_is_reported_with_its_traceback_and_the_rest_still_load(
    notes: Path,
) -> None:
    write_plugin("broken.py", "from hearth import tool\n\ndef oops(:\n    pass\n")
    write_plugin("empty.py", "X = 1\n")
    write_plugin("_private.py", "raise RuntimeError('never imported')\n")

    @tool(effect="read", name="clock.now")
    def now() -> str:
        """The time."""
        return "noon"

    class Clock:
        @hookimpl
        def register_tools(self, register: Callable[[Tool], None]) -> None:
            register(now)

    assistant = Assistant.open(plugins=[Clock()], entry_points=False, start_connectors=False)
    try:
        infos = {info.name: info for info in assistant.plugin_infos()}
        assert set(infos) == {"Clock", "broken", "empty", "notes"}
        broken = infos["broken"]
        assert broken.state == "failed" and broken.error.startswith("SyntaxError:")
        assert broken.details.startswith(f'  File "{plugins_dir() / "broken.py"}", line 3')
        assert broken.details.endswith("SyntaxError: invalid syntax\n")
        assert "defines no @hearth.tool functions" in infos["empty"].error
        assert (infos["Clock"].state, infos["Clock"].source) == ("loaded", "given")
        assert {"clock.now", "notes.read"} <= {t.name for t in assistant.tools}
        assert [f.plugin for f in assistant.plugin_failures()] == ["broken", "empty"]
    finally:
        assistant.close()


def test_turning_a_plugin_off_lasts_across_starts(notes: Path) -> None:
    first = Assistant.open(entry_points=False, start_connectors=False)
    try:
        info = first.set_plugin_enabled("notes", False)
        assert (info.state, info.tools) == ("disabled", ())
        assert "hearth plugins enable notes" in info.error
        assert first.tools.get("notes.read") is None and first.connectors() == []
    finally:
        first.close()
    stored = json.loads((config_dir() / "plugins.json").read_text(encoding="utf-8"))
    assert stored == {"disabled": ["notes"]}
    del sys.modules["hearth_user_plugins.notes"]
    second = Assistant.open(entry_points=False, start_connectors=False)
    try:
        assert "hearth_user_plugins.notes" not in sys.modules
        assert [i.state for i in second.plugin_infos()] == ["disabled"]
        assert second.set_plugin_enabled("notes", True).state == "loaded"
        assert second.tools.get("notes.read") is not None
    finally:
        second.close()
    third = Assistant.open(entry_points=False, start_connectors=False)
    try:
        assert [i.state for i in third.plugin_infos()] == ["loaded"]
    finally:
        third.close()


def test_safe_mode_imports_no_user_file(notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_DISABLE_PLUGINS", "1")
    ran = notes.parent / "ran"
    write_plugin("spy.py", f"open({str(ran)!r}, 'w').close()\n")
    assistant = Assistant.open(entry_points=False, start_connectors=False)
    try:
        infos = assistant.plugin_infos()
        assert [(i.name, i.state, i.error) for i in infos] == [
            ("notes", "disabled", SAFE_MODE_REASON),
            ("spy", "disabled", SAFE_MODE_REASON),
        ]
        assert len(assistant.tools) == 0
        assistant.reload_plugins()
        assert not ran.exists()
        assert not [name for name in sys.modules if name.startswith("hearth_user_plugins.")]
    finally:
        assistant.close()


def test_safe_mode_loads_no_third_party_package(
    notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEARTH_DISABLE_PLUGINS", "1")
    site = tmp_path / "site"
    info = site / "hearth_sample_spy-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hearth-sample-spy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hearth.plugins]\nspy = sample_spy_plugin\n")
    (site / "sample_spy_plugin.py").write_text("raise RuntimeError('imported')\n")
    monkeypatch.syspath_prepend(str(site))
    assistant = Assistant.open(start_connectors=False)
    try:
        spy = next(i for i in assistant.plugin_infos() if i.name == "spy")
        assert (spy.source, spy.state, spy.error) == ("package", "disabled", SAFE_MODE_REASON)
        assert spy.location == "sample_spy_plugin"
        assert "sample_spy_plugin" not in sys.modules
        assert {i.source for i in assistant.plugin_infos() if i.state == "loaded"} <= {"built-in"}
    finally:
        assistant.close()
