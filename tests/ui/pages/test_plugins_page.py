"""The Plugins page with real user plugin files: the example notes plugin loads with its tools,
a broken file shows its traceback, a plugin is turned off and on, and a fixed file comes back
by itself once saved (the watcher reloads it)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.paths import plugins_dir
from hearth.ui.context import UiContext
from hearth.ui.pages.plugins import PluginsPage
from tests.connectors.mcp.kit import McpPlugin, configure, stdio_server
from tests.ui.conftest import save_screenshot

BROKEN = "from hearth import tool\n\ndef oops(:\n    pass\n"
FIXED = '''"""Clock: what time it is."""

from hearth import tool


@tool(effect="read")
def now() -> str:
    """The time now."""
    return "noon"
'''


@pytest.fixture
def folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    monkeypatch.setenv("HEARTH_NOTES_DIR", str(tmp_path / "Notes"))
    example = resources.files("hearth.resources") / "examples" / "notes.py"
    target = plugins_dir()
    with resources.as_file(example) as source:
        shutil.copy(source, target / "notes.py")
    (target / "clock.py").write_text(BROKEN)
    return target


@pytest.fixture
def assistant(folder: Path) -> Iterator[Assistant]:
    core = Assistant.open(entry_points=False, start_connectors=False)
    yield core
    core.close()


@pytest.fixture
def page(qtbot: QtBot, context: UiContext) -> PluginsPage:
    widget = PluginsPage(context)
    qtbot.addWidget(widget)
    widget.resize(960, 760)
    with qtbot.waitSignal(widget.plugins_did_load, timeout=10_000):
        widget.show()
    return widget


def rows(page: PluginsPage) -> dict[str, tuple[str, ...]]:
    model = page.model
    return {
        model.index(row, 0).data(): tuple(
            model.index(row, column).data() for column in range(1, model.columnCount())
        )
        for row in range(model.rowCount())
    }


def test_plugins_show_their_tools_and_a_broken_one_its_traceback(
    qtbot: QtBot, page: PluginsPage
) -> None:
    shown = rows(page)
    assert shown["notes"] == ("Your plugins folder", "Loaded", "4")
    assert shown["clock"] == ("Your plugins folder", "Failed", "")
    page.select("notes")
    assert page.tools.text() == "Tools: notes.list, notes.search, notes.read, notes.write"
    assert not page.traceback.isVisible()
    page.select("clock")
    assert "SyntaxError" in page.error.text() and page.traceback.isVisible()
    assert "def oops(:" in page.traceback.toPlainText()
    save_screenshot(page, "plugins_page")


def test_a_plugin_turned_off_loses_its_tools_and_comes_back(
    qtbot: QtBot, page: PluginsPage, context: UiContext
) -> None:
    page.select("notes")
    with qtbot.waitSignal(page.plugins_did_load, timeout=10_000):
        page.toggle.click()
    assert rows(page)["notes"][1] == "Off" and page.toggle.text() == "Turn on"
    assert not [t for t in context.assistant.permissions.tools() if t.name.startswith("notes.")]
    with qtbot.waitSignal(page.plugins_did_load, timeout=10_000):
        page.toggle.click()
    assert rows(page)["notes"][1] == "Loaded"


def test_a_fixed_file_reloads_by_itself(
    qtbot: QtBot, page: PluginsPage, context: UiContext, folder: Path
) -> None:
    context.watch_plugins()
    with qtbot.waitSignal(page.plugins_did_load, timeout=15_000):
        (folder / "clock.py").write_text(FIXED)
    qtbot.waitUntil(lambda: rows(page)["clock"][1] == "Loaded", timeout=15_000)
    assert context.assistant.tools.get("clock.now") is not None


@pytest.fixture
def mcp_assistant(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Assistant]:
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    configure(Notes=stdio_server(tmp_path / "calls.log"))
    servers = McpPlugin()
    core = Assistant.open(plugins=[servers], entry_points=False, start_connectors=False)
    yield core
    core.close()
    servers.stop()


def test_an_mcp_server_shows_its_tools_and_how_it_stands(
    qtbot: QtBot, mcp_assistant: Assistant
) -> None:
    context = UiContext(mcp_assistant)
    page = PluginsPage(context)
    qtbot.addWidget(page)
    page.resize(960, 760)
    with qtbot.waitSignal(page.plugins_did_load, timeout=10_000):
        page.show()
    page.select("McpPlugin")
    assert "notes.read_note" in page.tools.text() and "notes.echo" in page.tools.text()
    qtbot.waitUntil(lambda: page.servers.isVisible(), timeout=15_000)
    assert page.servers.text().startswith("Notes (MCP): connected")
    save_screenshot(page, "plugins_page_mcp")
    context.shutdown()
