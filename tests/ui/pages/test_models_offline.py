"""A download with no way to the hub: the page points to its own Import button."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth import Models
from hearth.models import parse_catalog
from hearth.ui.context import UiContext
from hearth.ui.pages.models import ModelsPage
from tests.fixtures.fake_hub import FakeHub
from tests.ui.conftest import save_screenshot

CATALOG = """
[[model]]
id = "botpsy-0.8b-q8_0"
label = "BotPsy 0.8B, Q8_0 (recommended)"
repo = "BotPsy/BotPsy-0.8B-GGUF"
file = "*botpsy-0.8b*Q8_0.gguf"
quant = "Q8_0"
size = 870_000_000
license = "apache-2.0"
default = true
"""


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> str:
    """A hub address nothing listens on any more: every request is refused, as offline."""
    with FakeHub() as stopped:
        url = stopped.url
    monkeypatch.setenv("HF_ENDPOINT", url)
    return url


def test_offline_the_message_points_to_the_import_button(
    qtbot: QtBot, context: UiContext, offline: str
) -> None:
    page = ModelsPage(context)
    qtbot.addWidget(page)
    page.resize(1000, 620)
    with qtbot.waitSignal(page.inventory_did_load):
        page.show()
    page.models = Models(parse_catalog(CATALOG))
    with qtbot.waitSignal(page.inventory_did_load):
        page.refresh()
    dialogs: list[str] = []
    context.errors.error_shown.connect(lambda _doing, text: dialogs.append(text))

    page.select("botpsy-0.8b-q8_0")
    with qtbot.waitSignal(page.download_did_end, timeout=30_000) as ended:
        qtbot.mouseClick(page.download_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["failed"]
    assert dialogs == []  # said on the page, beside the button it names
    said = page.status.text()
    assert said.startswith("Offline: ")
    assert f"“{page.import_button.text()}”" in said
    assert "hearth models" not in said and "`" not in said
    assert page.status.isVisible() and page.import_button.isVisible()
    assert page.import_button.isEnabled()
    assert f"Could not reach {offline}" in page.status.toolTip()
    save_screenshot(page, "models-offline")
