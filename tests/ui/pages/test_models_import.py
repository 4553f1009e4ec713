"""Importing a file the catalog lists: the page shows the catalog's row, not a second one."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from hearth import paths
from hearth.models import load_catalog
from hearth.ui.context import UiContext
from hearth.ui.pages.catalog_model import LABEL, LICENSE, STATUS
from hearth.ui.pages.models import ModelsPage

TEST_ENTRY = "smollm2-135m-test"


def column(page: ModelsPage, index: int) -> list[str]:
    model = page.model
    return [str(model.index(row, index).data()) for row in range(model.rowCount())]


def test_importing_the_test_model_shows_it_as_its_catalog_entry(
    qtbot: QtBot, context: UiContext, test_gguf: Path
) -> None:
    page = ModelsPage(context)
    qtbot.addWidget(page)
    page.resize(1000, 620)
    with qtbot.waitSignal(page.inventory_did_load):
        page.show()
    listed = page.model.rowCount()
    # No model was loaded, so the page puts the imported one in use: the real SmolLM2 loads.
    with qtbot.waitSignal(page.model_did_change, timeout=60_000) as changed:
        page.import_file(test_gguf)
    imported = paths.models_dir() / test_gguf.name
    assert changed.args == [str(imported)]
    assert page.model.rowCount() == listed
    assert "unknown" not in column(page, LICENSE)
    label = load_catalog().get(TEST_ENTRY).label
    assert column(page, LABEL).count(label) == 1
    selected = page.selected_row()
    assert selected is not None and selected.key == TEST_ENTRY and selected.path == imported
    row = page.model.row_of(TEST_ENTRY)
    assert row is not None
    assert page.model.index(row, LICENSE).data() == "apache-2.0"
    assert page.model.index(row, STATUS).data() == "In use"
    assert page.status.text().startswith("Now using " + label)
