"""The Models page against a real local hub: progress, cancel and resume, import, verify, use."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth import Models, paths
from hearth.assistant import Assistant
from hearth.models import ThreadPolicy, load_catalog, parse_catalog, save_threads, saved_threads
from hearth.ui.context import UiContext
from hearth.ui.pages.catalog_model import LABEL, LICENSE, SIZE, STATUS
from hearth.ui.pages.models import ModelsPage
from hearth.ui.pages.threads_control import ThreadsControl
from tests.app.models.conftest import write_gguf
from tests.fixtures.fake_hub import FakeHub
from tests.ui.conftest import save_screenshot

REPO = "BotPsy/BotPsy-0.8B-GGUF"
FILENAME = "BotPsy-0.8B.Q8_0.gguf"
HUB_ONLY_CATALOG = """
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
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture
def published(hub: FakeHub, tmp_path: Path) -> bytes:
    """A 2 MiB GGUF on the hub, where the catalog's recommended entry looks for it."""
    data = write_gguf(tmp_path / "src.gguf", n_floats=512 * 1024).read_bytes()
    hub.add_file(REPO, FILENAME, data)
    return data


@pytest.fixture
def page(qtbot: QtBot, context: UiContext) -> ModelsPage:
    widget = ModelsPage(context)
    qtbot.addWidget(widget)
    widget.resize(1000, 620)
    widget.show()
    qtbot.waitSignal(widget.inventory_did_load).wait()
    return widget


def cell(page: ModelsPage, key: str, column: int) -> str:
    row = page.model.row_of(key)
    assert row is not None, key
    return str(page.model.index(row, column).data())


def reload(qtbot: QtBot, page: ModelsPage) -> None:
    with qtbot.waitSignal(page.inventory_did_load):
        page.refresh()


def test_catalog_rows_show_size_licence_and_state(page: ModelsPage) -> None:
    catalog = load_catalog()
    assert page.model.rowCount() >= len(catalog)
    default = catalog.default.id
    assert cell(page, default, LABEL) == catalog.default.label
    assert cell(page, default, SIZE) == "870 MB"
    assert cell(page, default, LICENSE) == "apache-2.0"
    assert cell(page, default, STATUS) == "Not installed"
    page.select(default)
    assert page.download_button.isEnabled() and not page.use_button.isEnabled()


def test_first_run_says_no_model_is_installed(qtbot: QtBot, page: ModelsPage) -> None:
    page.models = Models(parse_catalog(HUB_ONLY_CATALOG))
    reload(qtbot, page)
    assert page.banner.isVisible()
    assert "No model is installed yet" in page.banner.label.text()
    assert page.recommended_button.isVisible()
    save_screenshot(page, "models-first-run")


def test_download_moves_the_bar_to_100_and_installs_the_model(
    qtbot: QtBot, page: ModelsPage, context: UiContext, hub: FakeHub, published: bytes
) -> None:
    page.models = Models(parse_catalog(HUB_ONLY_CATALOG))
    reload(qtbot, page)
    hub.throttle_bps = 2_000_000
    seen: list[int] = []
    page.download_did_progress.connect(lambda _progress: seen.append(page.panel.bar.value()))
    with qtbot.waitSignal(page.download_did_end, timeout=20_000) as ended:
        qtbot.mouseClick(page.recommended_button, Qt.MouseButton.LeftButton)
        assert page.panel.isVisible() and not page.download_button.isEnabled()
    assert ended.args == ["done"]
    assert seen == sorted(seen) and seen[-1] == 100
    assert len([value for value in seen if 0 < value < 100]) >= 3
    assert page.panel.bar.value() == 100
    installed = paths.models_dir() / FILENAME
    assert hashlib.sha256(installed.read_bytes()).digest() == hashlib.sha256(published).digest()
    # No model was loaded, so the page tries to put this one in use; its weights are made up.
    with qtbot.waitSignal(context.errors.error_shown, timeout=20_000) as failed:
        qtbot.waitSignal(page.inventory_did_load).wait()
    assert failed.args[0] == "load BotPsy 0.8B, Q8_0 (recommended)"
    assert cell(page, "botpsy-0.8b-q8_0", STATUS) == "Installed"
    assert not page.banner.isVisible() and page.use_button.isEnabled()


def test_cancel_keeps_the_part_and_resume_finishes_it(
    qtbot: QtBot, page: ModelsPage, hub: FakeHub, published: bytes
) -> None:
    hub.throttle_bps = 1_000_000
    hub.hold_at = len(published) // 2  # cannot finish before the cancel, however slow the machine
    page.select("botpsy-0.8b-q8_0")
    page.download_selected()
    qtbot.waitUntil(lambda: page.panel.bar.value() >= 20, timeout=10_000)
    assert "Downloading" in cell(page, "botpsy-0.8b-q8_0", STATUS)
    with qtbot.waitSignal(page.download_did_end, timeout=10_000) as ended:
        qtbot.mouseClick(page.panel.cancel_button, Qt.MouseButton.LeftButton)
        hub.release.set()  # the cancel is set: the worker stops at its next chunk
    assert ended.args == ["cancelled"]
    part = paths.models_dir() / f"{FILENAME}.part"
    kept = part.stat().st_size
    assert 0 < kept < len(published)
    qtbot.waitSignal(page.inventory_did_load).wait()
    assert cell(page, "botpsy-0.8b-q8_0", STATUS).startswith("Paused at ")
    assert page.download_button.text() == "Resume download"
    assert "Paused" in page.status.text()

    hub.throttle_bps = None
    with qtbot.waitSignal(page.download_did_end, timeout=20_000) as ended:
        page.download_button.click()
    assert ended.args == ["done"]
    assert hub.file_gets()[-1].range == f"bytes={kept}-"
    assert (paths.models_dir() / FILENAME).read_bytes() == published
    assert not part.exists()


def test_a_failed_download_is_reported(
    qtbot: QtBot, page: ModelsPage, context: UiContext, hub: FakeHub
) -> None:
    hub.add_file(REPO, "README.md", b"# no model here yet")  # the repo exists, the file not
    page.select("botpsy-0.8b-q8_0")
    with qtbot.waitSignal(context.errors.error_shown, timeout=10_000) as shown:
        page.download_selected()
    assert shown.args[0] == "download BotPsy 0.8B, Q8_0 (recommended)"
    assert REPO in shown.args[1] and "no file matches" in shown.args[1]
    assert not page.fallback_button.isVisible()
    assert not page.panel.isVisible()


def test_import_through_the_dialog_then_verify_catches_corruption(
    qtbot: QtBot, page: ModelsPage, context: UiContext, tmp_path: Path
) -> None:
    source = write_gguf(tmp_path / "my-model.gguf")
    page.import_button.click()
    dialog = page.import_dialog
    assert dialog is not None and dialog.isVisible()
    # No model was loaded, so the page tries to put this one in use; its weights are made up.
    with qtbot.waitSignal(context.errors.error_shown, timeout=20_000) as failed:
        dialog.selectFile(str(source))
        dialog.accept()
    assert failed.args[0] == "load my-model.gguf"
    selected = page.selected_row()
    assert selected is not None and selected.label == "my-model.gguf"
    with qtbot.waitSignal(page.verify_did_finish) as verified:
        page.verify_button.click()
    assert "is intact" in verified.args[0]

    installed = paths.models_dir() / "my-model.gguf"
    data = bytearray(installed.read_bytes())
    data[-10] ^= 0xFF  # a flipped bit in the weights: the structure still parses
    installed.write_bytes(bytes(data))
    with qtbot.waitSignal(context.errors.error_shown) as shown:
        page.verify_button.click()
    assert "no longer matches" in shown.args[1]


def test_use_loads_the_model_into_the_assistant(
    qtbot: QtBot, page: ModelsPage, assistant: Assistant, test_gguf: Path
) -> None:
    page.select("smollm2-135m-test")
    assert page.use_button.isEnabled()
    with qtbot.waitSignal(page.model_did_change, timeout=60_000):
        page.use_button.click()
    assert Path(getattr(assistant.model, "path", "")) == test_gguf
    assert cell(page, "smollm2-135m-test", STATUS) == "In use"
    assert not page.use_button.isEnabled()


def test_the_threads_setting_is_saved_and_applied_to_the_loaded_model(
    qtbot: QtBot, page: ModelsPage, assistant: Assistant
) -> None:
    page.select("smollm2-135m-test")
    with qtbot.waitSignal(page.model_did_change, timeout=60_000):
        page.use_button.click()
    model = assistant.model
    assert getattr(model, "threads", None) == ThreadPolicy.automatic()
    choice = page.threads.choice
    qtbot.waitUntil(choice.isEnabled)  # the saved setting is read off the main thread
    assert choice.currentText() == "Automatic" and "keeping a core" in page.threads.hint.text()
    choice.setCurrentIndex(choice.findData(1))
    qtbot.waitUntil(lambda: getattr(model, "threads", None) == ThreadPolicy.fixed(1))
    assert saved_threads() == 1 and page.threads.hint.text() == "Hearth uses exactly 1 thread."
    save_screenshot(page, "models_page_threads")
    choice.setCurrentIndex(0)
    qtbot.waitUntil(lambda: getattr(model, "threads", None) == ThreadPolicy.automatic())
    assert saved_threads() is None


def test_screenshot_of_a_download_in_progress(
    qtbot: QtBot, page: ModelsPage, hub: FakeHub, published: bytes
) -> None:
    hub.throttle_bps = 600_000
    hub.hold_at = len(published) * 3 // 5  # still in progress however slow the screenshot is
    page.select("botpsy-0.8b-q8_0")
    page.download_selected()
    qtbot.waitUntil(lambda: page.panel.bar.value() >= 40, timeout=10_000)
    assert save_screenshot(page, "models").exists()
    with qtbot.waitSignal(page.download_did_end, timeout=10_000) as ended:
        page.cancel_download()
        hub.release.set()
    assert ended.args == ["cancelled"]


def test_a_saved_thread_count_shows_when_the_page_opens(qtbot: QtBot, context: UiContext) -> None:
    save_threads(1)
    control = ThreadsControl(context)
    qtbot.addWidget(control)
    qtbot.waitUntil(control.choice.isEnabled)
    assert control.choice.currentText() == "1"
    assert control.hint.text() == "Hearth uses exactly 1 thread."
