"""The window comes before what loads behind it: it opens without the plugins, the model or the
hub client, says what is still loading, and the pages that show what plugins bring fill in once
the plugins are here."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from hearth import Assistant
from hearth.ui.app import start_loading_plugins
from hearth.ui.context import UiContext
from hearth.ui.main_window import PLUGINS_LOADING, MainWindow
from tests.ui.conftest import save_screenshot
from tests.ui.pages.kit import Desk, DeskPlugin

FIRST_WINDOW = """
import sys, threading

on_main_thread = set()


class Watch:
    # Notes each import the main thread makes; the pool's own are its business.
    def find_spec(self, name, path=None, target=None):
        if threading.current_thread() is threading.main_thread():
            on_main_thread.add(name)
        return None


sys.meta_path.insert(0, Watch())
from PySide6.QtWidgets import QApplication
from hearth import Assistant
import hearth.ui.app
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow

app = QApplication([])
assistant = Assistant.open(window=True, defer_plugins=True)
window = MainWindow(UiContext(assistant))
window.show()
app.processEvents()
later = ("hearth.connectors", "hearth.ui.pages.models", "hearth.ui.pages.accounts",
    "hearth.models.download", "huggingface_hub", "llama_cpp", "hearth.plugins.watcher",
    "watchdog", "jsonschema", "numpy", "hearth.voice.audio", "sounddevice")
print(sorted({m for m in on_main_thread if m.startswith(later)}))
window.shutdown()
window.context.shutdown()
assistant.close()
"""


@pytest.fixture
def deferred() -> Iterator[Assistant]:
    core = Assistant.open(
        plugins=[DeskPlugin(Desk())],
        entry_points=False,
        start_connectors=False,
        defer_plugins=True,
    )
    yield core
    core.close()


@pytest.fixture
def window(qtbot: Any, deferred: Assistant) -> Iterator[MainWindow]:
    context = UiContext(deferred)
    shown = MainWindow(context)
    qtbot.addWidget(shown)
    shown.resize(1000, 680)
    shown.show()
    qtbot.waitExposed(shown)
    yield shown
    shown.close()
    context.shutdown()


def test_the_first_window_imports_nothing_that_loads_behind_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_WINDOW],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_page_opened_while_plugins_load_says_so_and_fills_in(
    window: MainWindow, deferred: Assistant, qtbot: Any
) -> None:
    assert window.loading.isHidden()  # nothing has started loading yet
    window.open_page("Accounts")
    assert window.stack.currentWidget() is window.waiting
    assert window.waiting.text() == PLUGINS_LOADING
    window.open_page("Activity")  # a page that shows no plugin's work opens at once
    assert window.stack.currentWidget() is window.pages["Activity"]
    window.open_page("Accounts")
    start_loading_plugins(window, window.context)
    assert window.loading.isVisible() and window.loading.text() == "Loading plugins…"
    save_screenshot(window, "loading_plugins")
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.pages.get("Accounts"))
    assert deferred.plugins_loaded
    assert window.loading.isHidden()
    window.show_chat()
    window.open_page("Accounts")
    assert window.stack.currentWidget() is window.pages["Accounts"]


def test_the_line_at_the_foot_names_everything_still_loading(window: MainWindow) -> None:
    window.loading.begin("the model")
    window.loading.begin("plugins")
    assert window.loading.text() == "Loading the model and plugins…"
    window.loading.end("the model")
    assert window.loading.text() == "Loading plugins…" and window.loading.isVisible()
    window.loading.end("plugins")
    assert window.loading.isHidden()
