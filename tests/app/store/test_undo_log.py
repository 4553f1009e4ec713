"""The undo journal, and Assistant.undo over a real store with a real reversible tool."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import Tool, UndoFailed, hookimpl, tool
from hearth.assistant import Assistant
from hearth.ruling import Reason
from hearth.store import Database, NotFound, StoreError, UndoLog, open_database


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
    assistant = Assistant.open(plugins=[NotesPlugin(notes)], entry_points=False)
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
    assistant = Assistant.open(plugins=[NotesPlugin(notes)], entry_points=False)
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
    assistant = Assistant.open(entry_points=False)
    try:
        assistant.undo_log.record("call-9", "old.tool", {}, None, "something old")
        with pytest.raises(UndoFailed, match="not available any more"):
            assistant.undo("call-9")
    finally:
        assistant.close()


def test_a_running_entry_collects_steps_and_finishes_with_the_result(db: Database) -> None:
    log = UndoLog(db)
    entry = log.begin("c1", "files.move", {"sources": ["a", "b"]}, "move a, b", conversation_id=3)
    assert log.get("c1").state == "running" and log.pending() == []
    log.add_step(entry, "moved", {"from": "a", "to": "x/a"})
    assert not db.connection().in_transaction  # each step is its own committed transaction
    with open_database(db.path) as other:  # visible to another connection at once
        assert UndoLog(other).steps(entry) == {"moved": [{"from": "a", "to": "x/a"}]}
    log.add_step(entry, "moved", {"from": "b", "to": "x/b"})
    log.finish("c1", {"moved": ["the tool's own result"]})
    (done,) = log.pending()
    assert (done.state, done.result, done.conversation_id) == (
        "done",
        {"moved": ["the tool's own result"]},
        3,
    )
    with pytest.raises(StoreError, match="no running undo entry"):
        log.finish("c1", {})


def test_a_stopped_entry_is_undoable_from_its_steps_or_dropped_without_any(db: Database) -> None:
    log = UndoLog(db)
    half = log.begin("half", "files.trash", {}, "trash 3 files")
    log.add_step(half, "trashed", {"original": "a"})
    log.add_step(half, "trashed", {"original": "b"})
    nothing = log.begin("nothing", "files.trash", {}, "trash 1 file")
    assert log.stop("half", "partial") == {"trashed": [{"original": "a"}, {"original": "b"}]}
    assert log.stop("nothing", "partial") == {}
    (entry,) = log.pending()
    assert (entry.call_id, entry.state) == ("half", "partial")
    assert entry.result == {"trashed": [{"original": "a"}, {"original": "b"}]}
    with pytest.raises(NotFound):
        log.get("nothing")
    assert db.query("SELECT count(*) FROM undo_steps WHERE undo_id = ?", (nothing,))[0][0] == 0


def test_reconcile_turns_entries_a_dead_process_left_running_into_unknown(db: Database) -> None:
    log = UndoLog(db)
    log.record("finished", "files.move", {}, {"moved": []}, "earlier")
    killed = log.begin("killed", "files.move", {}, "move 20 files")
    log.add_step(killed, "moved", {"from": "a", "to": "b"})
    log.begin("before-any-step", "files.move", {}, "move 5 files")
    (kept,) = log.reconcile()
    assert (kept.call_id, kept.state, kept.result) == (
        "killed",
        "unknown",
        {"moved": [{"from": "a", "to": "b"}]},
    )
    assert [e.call_id for e in log.pending()] == ["killed", "finished"]
    assert log.reconcile() == []


def test_undo_refuses_a_call_still_running(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    assistant = Assistant.open(plugins=[NotesPlugin(notes)], entry_points=False)
    try:
        assistant.undo_log.begin("call-1", "notes_append", {"line": "milk"}, "add milk")
        with pytest.raises(UndoFailed, match="still running"):
            assistant.undo("call-1")
    finally:
        assistant.close()


def test_entries_from_before_the_journal_read_back_as_done(tmp_path: Path) -> None:
    from hearth.store.undo import MIGRATIONS

    path = tmp_path / "hearth.db"
    with open_database(path) as old:
        old.migrate("undo", MIGRATIONS[:1])
        with old.transaction() as conn:
            conn.execute(
                "INSERT INTO undo (call_id, tool, arguments, result, summary, done_at)"
                " VALUES ('c1', 'files.move', '{}', '{\"moved\": []}', 'move', ?)",
                ("2026-01-01T00:00:00+00:00",),
            )
    with open_database(path) as db:
        (entry,) = UndoLog(db).pending()
        assert (entry.call_id, entry.state, entry.result) == ("c1", "done", {"moved": []})
