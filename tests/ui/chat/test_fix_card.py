"""A call whose arguments can be corrected gets a card that marks the field in plain words and
offers Edit arguments and Deny; a call that can never run is refused outright, said once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.dialogs import EditArgumentsDialog
from hearth.ui.chat.entries import CardState, NoticeEntry
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin
from tests.ui.chat.kit import TURN_TIMEOUT_MS, Desk, Harness, open_window
from tests.ui.conftest import save_screenshot

LEFT = Qt.MouseButton.LeftButton
RELATIVE = "'Documents/x.txt' is not a full path; full paths start with /"
PARSER_WORDS = "relative paths are refused"


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "Documents"
    folder.mkdir()
    return folder


@pytest.fixture
def script() -> list[Reply]:
    return []


@pytest.fixture
def files_harness(qtbot: Any, documents: Path, script: list[Reply]) -> Iterator[Harness]:
    files = FilesConnector()
    files.grant(documents)
    assistant = Assistant.open(
        ScriptedModel(script),
        plugins=[FilesPlugin(files)],
        entry_points=False,
        start_connectors=False,
    )
    try:
        yield from open_window(qtbot, assistant, Desk())
    finally:
        assistant.close()
        files.close()


def write(path: str) -> Reply:
    return Reply(calls=[("files.write_text", {"path": path, "text": "hello"})])


def said(card: ToolCard) -> list[str]:
    """Every line the card shows now."""
    QApplication.processEvents()  # rows added to the grid show on its next event
    labels = [label for label in card.findChildren(QLabel) if label.isVisibleTo(card)]
    return [line for label in labels for line in label.text().splitlines() if line.strip()]


def marked(card: ToolCard) -> list[str]:
    """The values the card marks as needing a correction."""
    QApplication.processEvents()
    values = card.arguments.findChildren(QLabel, "argValue")
    return [v.text() for v in values if v.property("problem") and v.isVisibleTo(card)]


def test_a_relative_path_is_marked_in_plain_words_and_its_correction_runs(
    files_harness: Harness, documents: Path, script: list[Reply], qtbot: Any
) -> None:
    script += [write("Documents/x.txt"), Reply(text="Written.")]
    card = files_harness.send_and_wait_for_card("Write hello to Documents/x.txt")
    assert marked(card) == ["Documents/x.txt"]
    problem = card.arguments.findChild(QLabel, "argProblem")
    assert problem is not None and problem.text() == f"⚠  {RELATIVE}"
    lines = said(card)
    assert sum(RELATIVE in line for line in lines) == 1  # said once
    assert not any(PARSER_WORDS in line for line in lines)
    assert not any("Rule:" in line for line in lines)
    assert card.edit.isVisible() and card.deny.isVisible()
    assert not card.allow_once.isVisible() and not card.allow_for.isVisible()
    save_screenshot(files_harness.window, "fix_card_relative_path")

    target = str(documents / "x.txt")
    qtbot.mouseClick(card.edit, LEFT)
    dialog = files_harness.window.findChild(EditArgumentsDialog)
    assert dialog.run.text() == "Use these arguments"
    dialog.editor.setPlainText(json.dumps({"path": target, "text": "hello"}))
    with qtbot.waitSignal(files_harness.controller.consent_did_ask, timeout=TURN_TIMEOUT_MS):
        qtbot.mouseClick(dialog.run, LEFT)
    # Corrected, it is a write like any other: the gate asks, and the card says what changed.
    qtbot.waitUntil(lambda: card.allow_once.isVisible())
    assert marked(card) == [] and not any(RELATIVE in line for line in said(card))
    assert card.edit_diff.text().startswith("You changed:\n  path: Documents/x.txt → /")
    assert "text:" not in card.edit_diff.text()
    qtbot.mouseClick(card.allow_once, LEFT)
    files_harness.wait_for_turn_end()
    assert (documents / "x.txt").read_text() == "hello"
    assert card.entry is not None and card.entry.outcome == "executed"
    notices = [e for e in files_harness.controller.transcript.entries if isinstance(e, NoticeEntry)]
    assert notices == []


def test_deny_refuses_a_call_to_correct_and_says_why_once(
    files_harness: Harness, documents: Path, script: list[Reply], qtbot: Any
) -> None:
    script += [write("Documents/x.txt"), Reply(text="Not written.")]
    card = files_harness.send_and_wait_for_card("Write hello to Documents/x.txt")
    qtbot.mouseClick(card.deny, LEFT)
    files_harness.wait_for_turn_end()
    assert not (documents / "x.txt").exists()
    entry = card.entry
    assert entry is not None and entry.state is CardState.DONE and entry.outcome == "denied"
    lines = said(card)
    assert sum(RELATIVE in line for line in lines) == 1
    assert not any(PARSER_WORDS in line for line in lines)


def test_a_path_outside_every_grant_is_refused_outright_and_said_once(
    files_harness: Harness, tmp_path: Path, script: list[Reply], qtbot: Any
) -> None:
    outside = tmp_path / "Elsewhere"
    outside.mkdir()
    script += [write(str(outside / "x.txt")), Reply(text="I cannot write there.")]
    files_harness.type_and_send("Write hello to Elsewhere/x.txt")
    files_harness.wait_for_turn_end()
    (entry,) = files_harness.cards()
    assert entry.state is CardState.DONE and entry.outcome == "invalid"
    card = files_harness.card(entry.call_id)
    assert not card.buttons.isVisible()
    lines = said(card)
    assert sum("outside the folders you granted" in line for line in lines) == 1, lines
    assert not (outside / "x.txt").exists()


def test_an_unknown_tool_is_refused_outright_and_said_once(
    files_harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    script += [Reply(calls=[("files.shred", {"path": "/x"})], unchecked=True), Reply(text="No.")]
    files_harness.type_and_send("Shred /x")
    files_harness.wait_for_turn_end()
    (entry,) = files_harness.cards()
    assert entry.outcome == "invalid"
    card = files_harness.card(entry.call_id)
    assert not card.buttons.isVisible()
    lines = said(card)
    assert sum("no tool named 'files.shred'" in line for line in lines) == 1, lines


def test_a_correction_a_rule_allows_runs_at_once_and_the_card_drops_the_marks(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    volume = harness.assistant.tools.get("volume_set")
    assert volume is not None
    harness.assistant.gate.grant(volume, {"setting": "volume", "level": 50}, "always")
    call = ("volume_set", {"setting": "volume", "level": 900})
    script += [Reply(calls=[call], unchecked=True), Reply(text="Set to 50.")]
    card = harness.send_and_wait_for_card("Volume to 900")
    assert marked(card) == ["900"]
    too_high = "900 is too high: level must be at most 100"
    assert sum(too_high in line for line in said(card)) == 1
    qtbot.mouseClick(card.edit, LEFT)
    dialog = harness.window.findChild(EditArgumentsDialog)
    dialog.editor.setPlainText(json.dumps({"setting": "volume", "level": 500}))
    assert not dialog.run.isEnabled()  # checked as you type, in the same plain words
    assert dialog.problem.text() == "500 is too high: level must be at most 100"
    dialog.editor.setPlainText(json.dumps({"setting": "volume", "level": 50}))
    qtbot.mouseClick(dialog.run, LEFT)
    harness.wait_for_turn_end()
    assert harness.desk.volume == 50
    entry = card.entry
    assert entry is not None and entry.outcome == "executed" and entry.problems == ()
    assert marked(card) == [] and not any(too_high in line for line in said(card))
    assert card.edit_diff.text().startswith("You changed:\n  level: 900 → 50")
