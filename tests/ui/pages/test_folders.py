"""The Folders page grants and revokes through the real files connector and follows its index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.folders import IndexStatus
from hearth.settings.model import SettingsStore
from hearth.ui.context import UiContext
from hearth.ui.pages.folder_model import FOLDER, INDEX
from hearth.ui.pages.folders import NO_CONNECTOR, FoldersPage
from tests.connectors.files.kit import FilesPlugin
from tests.ui.conftest import save_screenshot

FILES = 40


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "Documents"
    (folder / "letters").mkdir(parents=True)
    for number in range(FILES):
        (folder / f"note-{number:02}.txt").write_text(f"Note {number} about the heron survey.")
    (folder / "letters" / "landlord.md").write_text("The radiator is broken.")
    return folder


@pytest.fixture
def files(hearth_home: Path) -> Iterator[FilesConnector]:
    """The connector the page reaches through the assistant, which starts it as the app does."""
    connector = FilesConnector()
    yield connector
    connector.close()


@pytest.fixture
def plugin(files: FilesConnector) -> FilesPlugin:
    """The assistant of these tests loads the files connector (and not the desk's stand-in)."""
    return FilesPlugin(files)


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, files: FilesConnector) -> FoldersPage:
    widget = FoldersPage(context)
    qtbot.addWidget(widget)
    widget.resize(900, 520)
    with qtbot.waitSignal(widget.folders_did_load):
        widget.show()
    return widget


def test_granting_a_folder_indexes_it_with_progress(
    qtbot: QtBot, page: FoldersPage, files: FilesConnector, documents: Path
) -> None:
    assert page.model.rowCount() == 0
    assert page.state.text().startswith("No folders granted yet")
    seen: list[IndexStatus] = []
    bars: list[tuple[bool, int, int]] = []
    page.status_did_change.connect(seen.append)
    page.status_did_change.connect(
        lambda _status: bars.append((page.bar.isVisible(), page.bar.value(), page.bar.maximum()))
    )
    with qtbot.waitSignal(page.folders_did_load):
        page.grant(documents)
    assert page.model.rows == [documents.resolve()]
    assert page.selected_folder() == documents.resolve()
    qtbot.waitUntil(lambda: page.model.status is not None and page.model.status.state == "watching")
    scans = [status for status in seen if status.state == "scanning" and status.total]
    # Every file and folder inside the granted one is counted.
    assert scans and scans[-1].done == scans[-1].total == FILES + 2
    assert (True, FILES + 2, FILES + 2) in bars
    assert str(page.model.index(0, FOLDER).data()) == str(documents.resolve())
    assert page.model.index(0, INDEX).data() == "Up to date · watched for changes"
    assert not page.bar.isVisible()
    assert "up to date" in page.state.text()
    assert files.roots() == [documents.resolve()]


def test_revoking_a_folder_removes_it(
    qtbot: QtBot, page: FoldersPage, files: FilesConnector, documents: Path
) -> None:
    with qtbot.waitSignal(page.folders_did_load):
        page.grant(documents)
    files.library.wait_idle(30)
    with qtbot.waitSignal(page.folders_did_load):
        page.revoke_button.click()
    assert page.model.rowCount() == 0
    assert files.roots() == []
    assert "Revoked" in page.message.text()
    files.library.wait_idle(30)
    assert files.library.index.count() == 0


def test_a_refused_folder_is_reported_with_the_reason(
    qtbot: QtBot, page: FoldersPage, context: UiContext, documents: Path
) -> None:
    with qtbot.waitSignal(context.errors.error_shown) as shown:
        page.grant(documents / "note-01.txt")
    assert "is not an existing folder" in shown.args[1]
    assert page.model.rowCount() == 0


def test_the_folder_dialog_grants_what_is_chosen(
    qtbot: QtBot, page: FoldersPage, documents: Path
) -> None:
    page.grant_button.click()
    dialog = page.folder_dialog
    assert dialog is not None and dialog.isVisible()
    with qtbot.waitSignal(page.folders_did_load, timeout=10_000):
        dialog.selectFile(str(documents))
        dialog.accept()
    assert page.model.rows == [documents.resolve()]


def test_scanning_shows_a_progress_bar(
    qtbot: QtBot, page: FoldersPage, files: FilesConnector, documents: Path, tmp_path: Path
) -> None:
    with qtbot.waitSignal(page.folders_did_load):
        page.grant(documents)
    assert files.library.wait_idle(30)
    # The last status report crosses over to the main thread before the page is driven by hand.
    qtbot.waitUntil(lambda: page.model.status is not None and page.model.status.state == "watching")
    root = tmp_path / "Archive"
    page.show_status(IndexStatus("scanning", root, done=12, total=48))
    assert page.bar.isVisible() and (page.bar.value(), page.bar.maximum()) == (12, 48)
    assert page.state.text() == "Indexing Archive: 12 of 48 files"
    page.show_status(IndexStatus("watching", skipped=3, warnings=("cannot watch /x",)))
    assert not page.bar.isVisible()
    assert page.skipped.isVisible() and page.skipped.text().startswith("3 files were skipped")
    assert page.warnings.text() == "⚠ cannot watch /x"
    save_screenshot(page, "folders")


def test_without_a_files_connector_the_page_says_so(qtbot: QtBot) -> None:
    assistant = Assistant.open(entry_points=False)
    context = UiContext(assistant, SettingsStore())
    try:
        assert assistant.folders() is None
        page = FoldersPage(context)
        qtbot.addWidget(page)
        page.show()
        assert page.state.text() == NO_CONNECTOR
        assert not page.grant_button.isEnabled() and not page.revoke_button.isEnabled()
        assert not page.bar.isVisible() and page.model.rowCount() == 0
    finally:
        context.shutdown()
        assistant.close()
