"""Outside text on the desktop: the consent card (grid, preview, taint, result), the Activity page
and the tray's notifications show every hidden character of the spoofing corpus as an escape,
and no outside string starts a line of its own; screenshots of cards holding spoofs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel

from hearth import summary_of
from hearth.connectors.mail.results import MessageItem, MessageList
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, Taint, open_database
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.entries import CardState, ToolCardEntry
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.pages.audit_model import COLUMNS, AuditTableModel
from hearth.ui.tray import LONG_TASK_S, Tray
from tests.fixtures.spoofing import SPOOFS, assert_safe
from tests.ui.chat.kit import Desk, make_assistant
from tests.ui.conftest import save_screenshot

PLAIN = "plain words"


def asking(spoof: str) -> ToolCardEntry:
    """A card as the mail and files connectors fill it: the spoof in names, values, preview."""
    return ToolCardEntry(
        call_id="c1",
        tool=f"files.rename{spoof[:3]}",
        effect="write",
        arguments={"path": f"/home/ann/Documents/{spoof}", "new_name": spoof, "tags": [spoof]},
        preview=f"To: bob@example.com\nSubject: {spoof}\n\n{spoof}",
        state=CardState.ASKING,
        reason=f"it came from {spoof}",
        rule=f"ask files.rename in {spoof}",
        taint=(f"new_name '{spoof}' came from email '{spoof}'",),
    )


def done(spoof: str) -> ToolCardEntry:
    return ToolCardEntry(
        call_id="c2",
        tool="files.list",
        effect="read",
        arguments={"folder": spoof},
        state=CardState.DONE,
        outcome="executed",
        answer=f"You allowed {spoof} once.",
        result=json.dumps({"entries": [{"name": spoof}], "concerns": [spoof]}),
        # The core's line for the card (`ToolRan.summary`), as a connector's result words it.
        summary=summary_of(
            MessageList(
                folder="INBOX",
                messages=[
                    MessageItem(
                        id="INBOX/1",
                        sender="ann@example.com",
                        subject=spoof,
                        date="2026-12-03",
                        unread=True,
                        concerns=[spoof],
                    )
                ],
            )
        ),
        ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, f"once for {spoof}"),
    )


def texts(card: ToolCard) -> dict[str, str]:
    """What every label on the card shows, by its place."""
    grid = card.arguments_grid
    cells = [grid.itemAt(i).widget() for i in range(grid.count())]
    return {
        "grid": "\n".join(w.text() for w in cells if isinstance(w, QLabel)),
        "title": card.title.text(),
        "preview": card.preview.text(),
        "taint": card.taint.text(),
        "why": card.why.text(),
        "answer": card.answer_note.text(),
        "result": card.result_view.summary.text() + "\n" + card.result_view.warnings.text(),
        "details": card.result_view.details.text(),
    }


@pytest.fixture
def card(qtbot: Any) -> ToolCard:
    widget = ToolCard()
    qtbot.addWidget(widget)
    widget.resize(760, 600)
    return widget


@pytest.mark.parametrize("spoof", SPOOFS)
def test_the_card_shows_every_outside_string_escaped(card: ToolCard, spoof: str) -> None:
    full = {
        asking: ("grid", "title", "preview", "taint", "why"),
        done: ("grid", "answer", "result"),
    }
    for entry, places in full.items():
        card.show_entry(entry(PLAIN))
        plain = texts(card)
        card.show_entry(entry(spoof))
        shown = texts(card)
        for place, text in shown.items():
            # The whole spoof where it is shown whole; cut titles and results only stay safe.
            whole = place in places and (place != "title" or len(spoof) <= 3)
            assert_safe(text, spoof if place != "title" else spoof[:3], lines=True, whole=whole)
            # Only the preview's subject and body may keep a line feed; nothing else gets a line.
            extra = 2 * spoof.count("\n") if place == "preview" and entry is asking else 0
            if place != "details":
                assert text.count("\n") == plain[place].count("\n") + extra, (place, text)
        assert not any(line.startswith("⚠ Hearth") for line in shown["preview"].splitlines())


def test_a_bidi_name_reads_the_same_in_the_grid_and_the_preview(card: ToolCard) -> None:
    name = "invoice\u202efdp.exe"
    entry = asking(name)
    entry.preview = f"Rename {name}"
    card.show_entry(entry)
    assert "/home/ann/Documents/invoice\\u202efdp.exe" in texts(card)["grid"]
    assert card.preview.text() == "Rename invoice\\u202efdp.exe"


def test_screenshots_of_cards_holding_spoofs(qtbot: Any, card: ToolCard) -> None:
    """A card for each string of the corpus, at the height it asks for (the named ones first)."""
    card.show()
    shots = {
        "rlo_name": "invoice\u202efdp.exe",
        "line_separator_fake_warning": "name.txt\u2028⚠ Hearth: this file is safe to delete.txt",
        "terminal_escapes": "To: boss@example.com\x1b[1A\x1b[2K\x1b]0;title\x07\u2029x",
        "invisible_fillers": "zero\u200bwidth\u2060\u3164\U000e0041\u00ad.txt",
        **{f"corpus_{number:02d}": spoof for number, spoof in enumerate(SPOOFS)},
    }
    for name, spoof in shots.items():
        card.show_entry(asking(spoof))
        card.resize(760, card.heightForWidth(760) if card.hasHeightForWidth() else 0)
        card.resize(760, max(card.height(), card.sizeHint().height()))
        qtbot.wait(20)
        path: Path = save_screenshot(card, f"spoofing_card_{name}")
        assert path.exists()


@pytest.fixture
def spoofed_entries() -> list[Any]:
    with open_database() as db:
        log = AuditLog(db)
        for number, spoof in enumerate(SPOOFS):
            log.append(
                call_id=f"call_{number}",
                tool=f"mcp.{spoof}",
                arguments={"path": spoof},
                ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, f"once for {spoof}"),
                outcome="proposed",
                taint=[Taint("path", spoof, f"email '{spoof}'")],
            )
            log.record_outcome(f"call_{number}", "executed", result_summary=spoof)
        return log.entries(limit=None)


def test_the_activity_page_shows_cells_and_tooltips_escaped(
    qtbot: Any, spoofed_entries: list[Any]
) -> None:
    model = AuditTableModel(QPalette())
    model.set_entries(spoofed_entries)
    for row, entry in enumerate(spoofed_entries):
        spoof = SPOOFS[int(entry.call_id.removeprefix("call_"))]
        for column in range(len(COLUMNS)):
            cell = str(model.index(row, column).data() or "")
            # A cell is one line: line feeds and tabs fold into spaces, the rest is escaped.
            assert_safe(cell, spoof, lines=True, whole=COLUMNS[column] in ("Tool", "Arguments"))
            assert "\n" not in cell and "\t" not in cell
        tooltip = model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
        assert_safe(tooltip, spoof, lines=True)
        assert tooltip.count("\n") <= 8  # one line per fact, none added by the spoof


def test_notifications_show_outside_text_escaped(qtbot: Any) -> None:
    assistant = make_assistant(None, Desk())
    context = UiContext(assistant)
    window = MainWindow(context, pages=[])
    qtbot.addWidget(window)
    tray = Tray(window)
    try:
        window.hide()  # the user is looking elsewhere
        for spoof in SPOOFS:
            with qtbot.waitSignal(tray.notified) as notified:
                window.controller.turn_did_finish.emit(LONG_TASK_S + 2, f"Done: {spoof}")
            title, text = notified.args
            assert_safe(title + text, spoof.replace("\n", " ").replace("\t", " ")[:70])
            assert "\n" not in text
    finally:
        tray.hide()
        window.close()
        context.shutdown()
        assistant.close()
