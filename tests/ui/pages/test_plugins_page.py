"""The Plugins page with real user plugin files: the example notes plugin loads with its tools,
a broken file shows its traceback, a plugin is turned off and on, and a fixed file comes back
by itself once saved (the watcher reloads it). With real MCP servers: the page follows each
one live, one that never answers holds up neither the window nor the page, and one that comes
up late brings its tools to the page without a restart."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.mcp import plugin
from hearth.paths import plugins_dir
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.pages.plugins import PluginsPage
from tests.connectors.mcp.kit import (
    McpPlugin,
    configure,
    late_server,
    silent_server,
    stdio_server,
)
from tests.connectors.mcp.late_server import DOWN
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
    assert page.servers.text().startswith("Notes (MCP): ready, 6 tools")
    save_screenshot(page, "plugins_page_mcp")
    context.shutdown()


MCP_PLUGIN = plugin.__name__  # its name on the page when handed in, as here
PATIENCE_MS = 60_000  # only a bound: a test that meets it has failed


def servers_core(monkeypatch: pytest.MonkeyPatch) -> Assistant:
    """An assistant over the real MCP plugin; its servers start in the background."""
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    return Assistant.open(plugins=[plugin], entry_points=False)


def shown_page(qtbot: QtBot, context: UiContext) -> PluginsPage:
    page = PluginsPage(context)
    qtbot.addWidget(page)
    page.resize(960, 760)
    with qtbot.waitSignal(page.plugins_did_load, timeout=10_000):
        page.show()
    page.select(MCP_PLUGIN)
    return page


def test_the_page_follows_each_server_and_a_late_one_brings_its_tools(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "marker"
    configure(silent=silent_server(tmp_path / "pid", connect_timeout=1), late=late_server(marker))
    core = servers_core(monkeypatch)
    context = UiContext(core)
    try:
        page = shown_page(qtbot, context)
        silent = "silent (MCP): not answering: the MCP server 'silent' did not start within 1 s"
        late = "late (MCP): not answering: the MCP server 'late' could not start: "
        qtbot.waitUntil(
            lambda: silent in page.servers.text() and late in page.servers.text(),
            timeout=PATIENCE_MS,
        )
        assert f"it said: {DOWN} marker; retrying in " in page.servers.text()
        assert page.tools.text() == "No tools."
        save_screenshot(page, "plugins_page_mcp_not_answering")
        marker.touch()  # nothing else: the page follows the server by itself
        qtbot.waitUntil(
            lambda: "late (MCP): ready, 2 tools" in page.servers.text(), timeout=PATIENCE_MS
        )
        qtbot.waitUntil(
            lambda: page.tools.text() == "Tools: late.get_current_time, late.convert_time",
            timeout=10_000,
        )
        assert "silent (MCP): ready" not in page.servers.text()  # retrying, as before
    finally:
        context.shutdown()
        core.close()


def test_the_window_opens_while_a_server_has_not_answered(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server has two minutes to answer: the window and its Plugins page are up, and show
    it still starting, long before that."""
    configure(silent=silent_server(tmp_path / "pid", connect_timeout=120))
    core = servers_core(monkeypatch)
    context = UiContext(core)
    window = MainWindow(context, pages=[PluginsPage])
    qtbot.addWidget(window)
    try:
        window.show()
        qtbot.waitExposed(window)
        window.open_page(PluginsPage.title)
        page = window.stack.currentWidget()
        assert isinstance(page, PluginsPage)
        qtbot.waitUntil(lambda: page.model.rowCount() > 0, timeout=10_000)
        page.select(MCP_PLUGIN)
        qtbot.waitUntil(lambda: page.servers.isVisible(), timeout=10_000)
        assert page.servers.text() == "silent (MCP): connecting"
    finally:
        window.close()
        context.shutdown()
        core.close()
