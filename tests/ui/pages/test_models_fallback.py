"""The Models page when none of a model's repos exists: one sentence, and the fallback button."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth import Models, paths
from hearth.models import parse_catalog
from hearth.ui.context import UiContext
from hearth.ui.pages.catalog_model import STATUS
from hearth.ui.pages.models import ModelsPage
from tests.app.models.conftest import write_gguf
from tests.fixtures.fake_hub import COMMIT, FakeHub
from tests.ui.conftest import save_screenshot

CATALOG = """
[[model]]
id = "botpsy-0.8b-q4_k_m"
label = "BotPsy 0.8B, Q4_K_M"
repos = ["qvac/BotPsy-0.8B-GGUF", "qvac/BotPsy-0.8B-GGUFs"]
file = "botpsy-0.8b-q4_k_m.gguf"
quant = "Q4_K_M"
size = 560_000_000
license = "apache-2.0"
fallback = "qwen3.5-0.8b-q4_k_m"
default = true

[[model]]
id = "qwen3.5-0.8b-q4_k_m"
label = "Qwen3.5 0.8B, Q4_K_M (fallback base model, smaller)"
repo = "unsloth/Qwen3.5-0.8B-GGUF"
revision = "{commit}"
file = "Qwen3.5-0.8B-Q4_K_M.gguf"
quant = "Q4_K_M"
size = {size}
sha256 = "{sha256}"
license = "apache-2.0"
"""
FALLBACK_FILE = "Qwen3.5-0.8B-Q4_K_M.gguf"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, hub: FakeHub, tmp_path: Path) -> ModelsPage:
    data = write_gguf(tmp_path / "fallback.gguf", n_floats=256 * 1024).read_bytes()
    published = hub.add_file("unsloth/Qwen3.5-0.8B-GGUF", FALLBACK_FILE, data)
    widget = ModelsPage(context)
    qtbot.addWidget(widget)
    widget.resize(1000, 620)
    widget.show()
    qtbot.waitSignal(widget.inventory_did_load).wait()
    widget.models = Models(
        parse_catalog(CATALOG.format(commit=COMMIT, size=len(data), sha256=published.sha256))
    )
    with qtbot.waitSignal(widget.inventory_did_load):
        widget.refresh()
    return widget


def test_missing_repos_offer_the_fallback_and_its_button_downloads_it(
    qtbot: QtBot, page: ModelsPage, context: UiContext, hub: FakeHub
) -> None:
    shown: list[str] = []
    context.errors.error_shown.connect(lambda doing, _text: shown.append(doing))
    page.select("botpsy-0.8b-q4_k_m")
    with qtbot.waitSignal(page.download_did_end, timeout=10_000) as ended:
        page.download_button.click()
    assert ended.args == ["failed"]
    assert page.status.text() == (
        f"No repository for botpsy-0.8b-q4_k_m exists on {hub.url} (tried"
        " qvac/BotPsy-0.8B-GGUF, qvac/BotPsy-0.8B-GGUFs), so download the fallback model"
        " qwen3.5-0.8b-q4_k_m instead."
    )
    assert page.fallback_button.isVisible()
    assert page.fallback_button.text() == "Download Qwen3.5 0.8B instead"
    assert shown == []  # the offer is on the page, not in an error dialog
    qtbot.waitSignal(page.inventory_did_load).wait()
    save_screenshot(page, "models-fallback-offered")

    with qtbot.waitSignal(page.download_did_end, timeout=20_000) as ended:
        qtbot.mouseClick(page.fallback_button, Qt.MouseButton.LeftButton)
        assert not page.fallback_button.isVisible()
    assert ended.args == ["done"]
    assert (paths.models_dir() / FALLBACK_FILE).is_file()
    assert hub.file_gets()[-1].path.endswith(f"/{COMMIT}/{FALLBACK_FILE}")
    # No model was loaded, so the page tries to put this one in use; its weights are made up.
    with qtbot.waitSignal(context.errors.error_shown, timeout=20_000) as failed:
        pass
    assert failed.args[0] == "load Qwen3.5 0.8B, Q4_K_M (fallback base model, smaller)"
    row = page.model.row_of("qwen3.5-0.8b-q4_k_m")
    assert row is not None and page.model.index(row, STATUS).data() == "Installed"
