"""A real files.move card: its preview before it runs, then Undo puts the files back on disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.ui.chat.entries import UndoState
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin
from tests.ui.chat.kit import Desk, Harness, open_window
from tests.ui.conftest import save_screenshot

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def downloads(tmp_path: Path) -> Path:
    folder = tmp_path / "Downloads"
    (folder / "Invoices").mkdir(parents=True)
    for month in ("2026-09", "2026-10", "2026-11"):
        (folder / f"invoice-{month}.pdf").write_bytes(b"%PDF-1.4 placeholder")
    return folder


@pytest.fixture
def files_harness(qtbot: Any, downloads: Path) -> Iterator[Harness]:
    files = FilesConnector()
    files.grant(downloads)
    sources = sorted(str(p) for p in downloads.glob("invoice-*.pdf"))
    move = ("files.move", {"sources": sources, "destination": str(downloads / "Invoices")})
    model = ScriptedModel([Reply(calls=[move]), Reply(text="Moved the three invoices.")])
    assistant = Assistant.open(
        model, plugins=[FilesPlugin(files)], entry_points=False, start_connectors=False
    )
    try:
        yield from open_window(qtbot, assistant, Desk())
    finally:
        assistant.close()
        files.close()


def test_a_move_card_previews_runs_and_undoes(
    files_harness: Harness, downloads: Path, qtbot: Any
) -> None:
    card = files_harness.send_and_wait_for_card("Move my invoices into the Invoices folder")
    assert f"Move 3 items from {downloads} to {downloads / 'Invoices'}" in card.preview.text()
    save_screenshot(files_harness.window, "files_move_card_pending")
    assert sorted(p.name for p in downloads.glob("*.pdf")) == [
        "invoice-2026-09.pdf",
        "invoice-2026-10.pdf",
        "invoice-2026-11.pdf",
    ]

    qtbot.mouseClick(card.allow_once, LEFT)
    files_harness.wait_for_turn_end()
    assert not list(downloads.glob("*.pdf"))
    assert len(list((downloads / "Invoices").iterdir())) == 3
    assert card.entry.undo is UndoState.AVAILABLE
    save_screenshot(files_harness.window, "files_move_card_done")

    qtbot.mouseClick(card.undo, LEFT)
    qtbot.waitUntil(lambda: card.entry.undo is UndoState.DONE, timeout=10_000)
    assert len(list(downloads.glob("*.pdf"))) == 3
    assert not any((downloads / "Invoices").iterdir())
