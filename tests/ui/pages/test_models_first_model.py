"""The Models page as a new user meets it: the first model becomes the one in use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from hearth import paths
from hearth.assistant import Assistant
from hearth.ui.chat.status import NO_MODEL
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.pages.catalog_model import STATUS
from hearth.ui.pages.models import LOADING_MODELS, ModelsPage
from tests.ui.conftest import save_screenshot

LOAD_TIMEOUT_MS = 60_000


@pytest.fixture
def window(qtbot: QtBot, context: UiContext) -> Iterator[MainWindow]:
    main = MainWindow(context, pages=[ModelsPage])
    qtbot.addWidget(main)
    main.resize(1100, 720)
    main.show()
    qtbot.waitExposed(main)
    yield main
    main.close()


def models_page(qtbot: QtBot, window: MainWindow) -> ModelsPage:
    window.open_page("Models")
    page = window.pages["Models"]
    assert isinstance(page, ModelsPage)
    if not page.model.rows:
        qtbot.waitSignal(page.inventory_did_load, timeout=LOAD_TIMEOUT_MS).wait()
    return page


@pytest.fixture
def opening(qtbot: QtBot, context: UiContext) -> tuple[ModelsPage, str]:
    """A Models page and what it showed the moment it opened, before its inventory arrived."""
    page = ModelsPage(context)
    qtbot.addWidget(page)
    page.show()
    return page, page.loading.text() if page.loading.isVisible() else ""


def test_the_page_says_it_is_loading_until_the_inventory_arrives(
    qtbot: QtBot, opening: tuple[ModelsPage, str]
) -> None:
    page, shown = opening
    assert shown == LOADING_MODELS
    if not page.model.rows:
        qtbot.waitSignal(page.inventory_did_load).wait()
    assert not page.loading.isVisible()


def test_importing_the_first_model_puts_it_in_use(
    qtbot: QtBot, window: MainWindow, assistant: Assistant, test_gguf: Path
) -> None:
    assert assistant.model is None
    page = models_page(qtbot, window)
    with qtbot.waitSignal(page.model_did_change, timeout=LOAD_TIMEOUT_MS) as changed:
        page.import_file(test_gguf)
    installed = Path(changed.args[0])
    assert installed.name == test_gguf.name
    assert Path(getattr(assistant.model, "path", "")) == installed
    row = next(r for r in page.model.rows if r.path == installed)
    assert page.model.index(page.model.row_of(row.key) or 0, STATUS).data() == "In use"
    assert "Now using" in page.status.text()
    qtbot.waitUntil(lambda: window.chat.status.full_text() != NO_MODEL, timeout=LOAD_TIMEOUT_MS)
    save_screenshot(window, "models-first-import-in-use")


def test_the_import_is_only_announced_once_its_row_is_listed(
    qtbot: QtBot, window: MainWindow, test_gguf: Path
) -> None:
    page = models_page(qtbot, window)
    page.import_file(test_gguf)
    qtbot.waitUntil(lambda: "Importing" not in page.status.text(), timeout=LOAD_TIMEOUT_MS)
    installed = paths.models_dir() / test_gguf.name
    assert any(r.path == installed for r in page.model.rows)
    qtbot.waitSignal(page.model_did_change, timeout=LOAD_TIMEOUT_MS).wait()


def test_a_failed_import_says_what_failed(
    qtbot: QtBot, window: MainWindow, context: UiContext, test_gguf: Path, tmp_path: Path
) -> None:
    page = models_page(qtbot, window)
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(test_gguf.read_bytes()[:4096])
    with qtbot.waitSignal(context.errors.error_shown, timeout=LOAD_TIMEOUT_MS) as shown:
        page.import_file(truncated)
    text = page.status.text()
    assert "Importing" not in text
    assert "Could not import truncated.gguf" in text
    assert shown.args[1] in text
