"""The undo journal, and Assistant.undo over a real store with a real reversible tool."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import Tool, UndoFailed, hookimpl, tool
from hearth.assistant import Assistant
from hearth.ruling import Reason
from hearth.store import NotFound, StoreError, UndoLog, open_database


def test_pending_is_newest_first_and_undone_entries_leave_it() -> None:
    with open_database() as db:
        log = UndoLog(db)
        log.record("c1", "files.move", {"a": 1}, {"moved": [1]}, "first")
        log.record("c2", "files.trash", {"b": 2}, {"trashed": [2]}, "second", conversation_id=7)
        assert [e.call_id for e in log.pending()] == ["c2", "c1"]
        assert log.get("c2").result == {"trashed": [2]}
        log.mark_undone("c2", "restored")
        assert [e.call_id for e in log.pending()] == ["c1"]
        assert log.get("c2").undo_summary == "restored"
        with pytest.raises(StoreError, match="already undone"):
            log.mark_undone("c2", "again")
        with pytest.raises(NotFound):
            log.get("nope")


class NotesPlugin:
    """A real reversible tool: appends a line to a file; undo removes it again."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        path = self.path

        def remove(arguments: object, result: dict[str, int]) -> str:
            lines = path.read_text().splitlines(keepends=True)
            if len(lines) != result["lines"]:
                raise UndoFailed("the file changed since")
            path.write_text("".join(lines[:-1]))
            return "removed the line"

        @tool(effect="write", undo=remove)
        def notes_append(line: str) -> dict[str, int]:
            """Append a line to the notes file.

            Args:
                line: The text to add.
            """
            with path.open("a") as file:
                file.write(line + "\n")
            return {"lines": len(path.read_text().splitlines())}

        register(notes_append)


def test_assistant_undo_records_and_refuses_twice(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    assistant = Assistant(plugins=[NotesPlugin(notes)], entry_points=False)
    try:
        appended = assistant.tools.get("notes_append")
        assert appended is not None
        result = appended.invoke({"line": "milk"})
        assistant.undo_log.record("call-1", "notes_append", {"line": "milk"}, result, "add milk")
        done = assistant.undo("call-1")
        assert done.summary == "removed the line" and notes.read_text() == ""
        with pytest.raises(UndoFailed, match="already undone"):
            assistant.undo("call-1")
        rows = [(e.call_id, e.outcome, e.ruling.reason) for e in assistant.audit.entries()]
        assert rows == [
            ("undo:call-1", "proposed", Reason.UNDO),
            ("undo:call-1", "executed", Reason.UNDO),
        ]
    finally:
        assistant.close()


def test_a_failing_undo_is_reported_and_stays_pending(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    assistant = Assistant(plugins=[NotesPlugin(notes)], entry_points=False)
    try:
        appended = assistant.tools.get("notes_append")
        assert appended is not None
        result = appended.invoke({"line": "milk"})
        assistant.undo_log.record("call-1", "notes_append", {"line": "milk"}, result, "add milk")
        notes.write_text("milk\nthe user's own line\n")
        with pytest.raises(UndoFailed, match="changed since"):
            assistant.undo("call-1")
        assert [e.call_id for e in assistant.undoable()] == ["call-1"]
        assert assistant.audit.entries()[-1].outcome == "failed"
    finally:
        assistant.close()


def test_undo_of_a_tool_that_is_gone_says_so() -> None:
    assistant = Assistant(entry_points=False)
    try:
        assistant.undo_log.record("call-9", "old.tool", {}, None, "something old")
        with pytest.raises(UndoFailed, match="not available any more"):
            assistant.undo("call-9")
    finally:
        assistant.close()
