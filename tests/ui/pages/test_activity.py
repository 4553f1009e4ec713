"""The Activity page shows the real audit log, filters it, and exports what it shows."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth.agent import AllowOnce, ConsentAsked, Deny, Executor
from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.messages import CancelToken, ToolCall
from hearth.settings.model import SettingsStore
from hearth.ui.context import UiContext
from hearth.ui.pages.activity import ActivityPage
from hearth.ui.pages.audit_model import DECIDED_BY, OUTCOME, RESULT, TOOL
from tests.connectors.files.kit import FilesPlugin
from tests.ui.conftest import save_screenshot


def run_call(assistant: Assistant, call: ToolCall, allow: bool = True) -> None:
    executor = Executor(assistant.tools, assistant.gate, assistant.audit, assistant.intents)
    for step in executor.handle(call, 7, CancelToken()):
        if isinstance(step, ConsentAsked):
            step.request.answer(AllowOnce() if allow else Deny("not today"))


@pytest.fixture
def history(assistant: Assistant, tmp_path: Path) -> Assistant:
    """A log with executed, denied and failed calls, one of them allowed by a rule."""
    (tmp_path / "todo.txt").write_text("buy milk", encoding="utf-8")
    read = assistant.tools.get("files.read")
    assert read is not None
    assistant.gate.grant(read, {"path": str(tmp_path / "todo.txt")}, "always", scope=str(tmp_path))
    run_call(assistant, ToolCall("files.read", {"path": str(tmp_path / "todo.txt")}))
    run_call(assistant, ToolCall("files.read", {"path": str(tmp_path / "missing.txt")}))
    send = {"to": "bob@example.org", "subject": "Hi", "body": "Lunch?"}
    run_call(assistant, ToolCall("mail.send", send), allow=False)
    run_call(assistant, ToolCall("calendar.create", {"calendar": "Work", "title": "Standup"}))
    return assistant


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, history: Assistant) -> ActivityPage:
    widget = ActivityPage(context)
    qtbot.addWidget(widget)
    widget.resize(1100, 600)
    with qtbot.waitSignal(widget.entries_did_load) as loaded:
        widget.show()
    assert loaded.args == [7]  # 3 allowed calls x 2 rows, 1 denied call x 1 row
    return widget


def column(page: ActivityPage, index: int) -> list[str]:
    return [str(page.proxy.index(row, index).data()) for row in range(page.proxy.rowCount())]


def test_entries_are_shown_newest_first_in_words(page: ActivityPage) -> None:
    assert column(page, TOOL) == [
        "calendar.create",
        "calendar.create",
        "mail.send",
        "files.read",
        "files.read",
        "files.read",
        "files.read",
    ]
    assert column(page, OUTCOME)[:3] == ["Done", "Allowed", "Denied"]
    deciders = column(page, DECIDED_BY)
    assert deciders[0] == "You"
    assert "Rule: allow files.read on" in deciders[-1]
    assert deciders[2] == "You"
    refusal = page.proxy.index(2, DECIDED_BY).data(Qt.ItemDataRole.ToolTipRole)
    assert "Decided by: you" in refusal and "Why: not today" in refusal
    assert page.status.text() == "Showing 7 of 7 entries"


def test_filters_by_tool_outcome_and_text(page: ActivityPage) -> None:
    page.tool_filter.setCurrentIndex(page.tool_filter.findData("files.read"))
    assert set(column(page, TOOL)) == {"files.read"}
    page.outcome_filter.setCurrentIndex(page.outcome_filter.findData("failed"))
    assert column(page, OUTCOME) == ["Failed"]
    page.tool_filter.setCurrentIndex(0)
    page.outcome_filter.setCurrentIndex(0)
    page.search.setText("BOB@example")
    assert column(page, TOOL) == ["mail.send"]
    assert page.status.text() == "Showing 1 of 7 entries"
    page.search.setText("no such words")
    assert page.proxy.rowCount() == 0 and not page.export_button.isEnabled()


def test_new_entries_appear_on_refresh(
    qtbot: QtBot, page: ActivityPage, assistant: Assistant
) -> None:
    run_call(assistant, ToolCall("system.volume_set", {"setting": "volume", "level": 20}))
    with qtbot.waitSignal(page.entries_did_load) as loaded:
        page.refresh_button.click()
    assert loaded.args == [9]
    assert column(page, TOOL)[0] == "system.volume_set"
    assert page.tool_filter.findData("system.volume_set") > 0


def test_export_writes_the_filtered_entries_as_json(
    qtbot: QtBot, page: ActivityPage, tmp_path: Path
) -> None:
    page.tool_filter.setCurrentIndex(page.tool_filter.findData("calendar.create"))
    target = tmp_path / "activity.json"
    with qtbot.waitSignal(page.export_did_finish) as done:
        page.export_to(target)
    assert done.args == [str(target), 2]
    records = json.loads(target.read_text(encoding="utf-8"))
    assert [record["tool"] for record in records] == ["calendar.create"] * 2
    assert {record["outcome"] for record in records} == {"proposed", "executed"}
    assert "Exported 2 entries" in page.status.text()


def test_export_through_the_file_dialog_writes_csv(
    qtbot: QtBot, page: ActivityPage, tmp_path: Path
) -> None:
    page.export_button.click()
    dialog = page.export_dialog
    assert dialog is not None and dialog.isVisible()
    target = tmp_path / "activity.csv"
    with qtbot.waitSignal(page.export_did_finish):
        dialog.selectFile(str(target))
        dialog.accept()
    with target.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 7
    assert {row["tool"] for row in rows} == {"files.read", "mail.send", "calendar.create"}


def test_an_export_that_cannot_be_written_is_reported(
    qtbot: QtBot, page: ActivityPage, context: UiContext, tmp_path: Path
) -> None:
    with qtbot.waitSignal(context.errors.error_shown) as shown:
        page.export_to(tmp_path / "no such folder" / "activity.json")
    assert shown.args[0] == "export the activity log to activity.json"
    assert "No such file or directory" in shown.args[1]


def test_screenshot_of_the_log(page: ActivityPage) -> None:
    page.table.selectRow(2)
    assert save_screenshot(page, "activity").exists()


def test_an_undo_reads_as_an_undo_with_what_it_put_back(qtbot: QtBot, tmp_path: Path) -> None:
    documents = tmp_path / "Documents"
    documents.mkdir()
    files = FilesConnector()
    files.grant(documents)
    assistant = Assistant.open(plugins=[FilesPlugin(files)], entry_points=False)
    context = UiContext(assistant, SettingsStore())
    try:
        call = ToolCall("files.write_text", {"path": str(documents / "x.txt"), "text": "hi"})
        executor = Executor(
            assistant.tools,
            assistant.gate,
            assistant.audit,
            assistant.intents,
            undo_log=assistant.undo_log,
        )
        for step in executor.handle(call, 7, CancelToken()):
            if isinstance(step, ConsentAsked):
                step.request.answer(AllowOnce())
        undone = assistant.undo(call.id)
        page = ActivityPage(context)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.entries_did_load):
            page.show()
        tools, outcomes = column(page, TOOL), column(page, OUTCOME)
        assert tools[:2] == ["Undid files.write_text", "Undo of files.write_text"]
        assert outcomes[:2] == ["Done", "Allowed"]
        assert tools[2:] == ["files.write_text", "files.write_text"]
        assert column(page, RESULT)[0] == undone.summary
        assert "moved" in undone.summary and "to the trash" in undone.summary
        tip = page.proxy.index(0, TOOL).data(Qt.ItemDataRole.ToolTipRole)
        assert tip.startswith("Undid files.write_text — Done")
    finally:
        context.shutdown()
        assistant.close()
        files.close()
