"""Page fixtures: a real Assistant (SQLite in HEARTH_HOME) with the desk plugin, and a UiContext."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hearth.assistant import Assistant
from hearth.settings.model import SettingsStore
from hearth.ui.context import UiContext
from tests.ui.pages.kit import Desk, DeskPlugin


@pytest.fixture
def desk() -> Desk:
    return Desk()


@pytest.fixture
def plugin(desk: Desk) -> DeskPlugin:
    return DeskPlugin(desk)


@pytest.fixture
def assistant(plugin: DeskPlugin) -> Iterator[Assistant]:
    # entry_points=False: only the plugins a test hands in, never what is installed.
    core = Assistant.open(plugins=[plugin], entry_points=False)
    yield core
    core.close()


@pytest.fixture
def context(assistant: Assistant) -> Iterator[UiContext]:
    ui = UiContext(assistant, SettingsStore())
    yield ui
    ui.shutdown()
