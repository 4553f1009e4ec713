"""Per-item journal: a batch that fails half-way is `partial`, and undo puts back what it moved."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from hearth import Tool, ToolFailure, hookimpl, journal_step, tool
from hearth.agent import AllowOnce, ToolRan
from hearth.assistant import Assistant
from hearth.store import Database, open_database
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel

Moves = dict[str, list[dict[str, str]]]


def put_back(arguments: object, result: Moves) -> str:
    """Undo: move each file back, leaving alone an item whose move never happened."""
    restored = 0
    for item in reversed(result["moved"]):
        source, target = Path(item["from"]), Path(item["to"])
        if target.exists() and not source.exists():
            target.rename(source)
            restored += 1
    return f"put back {restored} of {len(result['moved'])} files"


@tool(effect="write", undo=put_back, keywords=("move", "files", "batch"))
def batch_move(
    folder: str, destination: str, fail_at: int = -1, die_at: int = -1, pause_ms: int = 0
) -> Moves:
    """Move every file in a folder into another folder, one by one.

    Args:
        folder: The folder whose files to move.
        destination: The folder to move them into.
        fail_at: Stop with an error before this item (-1: never).
        die_at: Stop dead after journaling this item, before moving it (-1: never).
        pause_ms: Milliseconds to wait around each move.
    """
    moved: Moves = {"moved": []}
    for index, source in enumerate(sorted(Path(folder).iterdir())):
        if index == fail_at:
            raise ToolFailure(f"the disk refused {source.name}")
        item = {"from": str(source), "to": str(Path(destination) / source.name)}
        journal_step("moved", item)
        if index == die_at:
            raise KeyboardInterrupt  # stands in for SIGKILL: the executor records nothing more
        time.sleep(pause_ms / 2000)
        source.rename(item["to"])
        time.sleep(pause_ms / 2000)
        moved["moved"].append(item)
    return moved


@tool(effect="write", keywords=("move", "files", "batch"))
def batch_move_no_undo(folder: str, destination: str, fail_at: int = -1) -> Moves:
    """Move files like batch_move, with no way to undo.

    Args:
        folder: The folder whose files to move.
        destination: The folder to move them into.
        fail_at: Stop with an error before this item (-1: never).
    """
    return batch_move.function(folder, destination, fail_at)  # type: ignore[no-any-return]


class BatchPlugin:
    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(batch_move)
        register(batch_move_no_undo)


def make_files(root: Path, count: int) -> tuple[Path, Path, list[str]]:
    source, destination = root / "inbox", root / "archive"
    source.mkdir(parents=True)
    destination.mkdir()
    names = [f"note-{n:02}.txt" for n in range(count)]
    for name in names:
        (source / name).write_text(f"{name}\n")
    return source, destination, names


def open_assistant(db: Database, replies: Sequence[Reply] = ()) -> Assistant:
    return Assistant.open(
        ScriptedModel(list(replies)),
        database=db,
        plugins=[BatchPlugin()],
        entry_points=False,
        start_connectors=False,
    )


def run_batch(assistant: Assistant, **arguments: Any) -> ToolRan:
    """One turn in which the model calls a batch tool once; the user allows it."""
    assert isinstance(assistant.model, ScriptedModel)
    name = arguments.pop("tool", "batch_move")
    assistant.model.replies.extend([Reply(calls=[(name, arguments)]), Reply("Done.")])
    steps = drive(assistant.session().run_turn("move the files"), lambda _: AllowOnce())
    (ran,) = of(steps, ToolRan)
    return ran  # type: ignore[no-any-return]


def last_outcome(assistant: Assistant, call_id: str) -> str:
    return assistant.audit.entries(call_id=call_id)[-1].outcome


def intent_state(assistant: Assistant, call_id: str) -> str:
    rows = assistant.db.query("SELECT state FROM intents WHERE call_id = ?", (call_id,))
    return str(rows[0]["state"]) if rows else "no intent"


def test_a_batch_failing_half_way_is_partial_and_undo_puts_back_exactly_what_moved(
    tmp_path: Path,
) -> None:
    source, destination, names = make_files(tmp_path, 8)
    assistant = open_assistant(open_database(tmp_path / "hearth.db"))
    try:
        ran = run_batch(assistant, folder=str(source), destination=str(destination), fail_at=3)
        assert ran.outcome == "partial" and ran.undoable
        assert "the disk refused note-03.txt" in ran.result
        assert all(f"{destination / name}" in ran.result for name in names[:3])
        assert sorted(p.name for p in destination.iterdir()) == names[:3]
        assert last_outcome(assistant, ran.call.id) == "partial"
        assert intent_state(assistant, ran.call.id) == "partial"
        (entry,) = assistant.undoable()
        assert entry.call_id == ran.call.id and entry.state == "partial"
        assert [item["from"] for item in entry.result["moved"]] == [
            str(source / name) for name in names[:3]
        ]
        done = assistant.undo(ran.call.id)
        assert done.summary == "put back 3 of 3 files"
        assert sorted(p.name for p in source.iterdir()) == names
        assert not list(destination.iterdir())
        assert last_outcome(assistant, f"undo:{ran.call.id}") == "executed"
    finally:
        assistant.close()


def test_a_batch_failing_before_any_item_is_failed_and_leaves_nothing_to_undo(
    tmp_path: Path,
) -> None:
    source, destination, names = make_files(tmp_path, 3)
    assistant = open_assistant(open_database(tmp_path / "hearth.db"))
    try:
        ran = run_batch(assistant, folder=str(source), destination=str(destination), fail_at=0)
        assert ran.outcome == "failed" and not ran.undoable
        assert last_outcome(assistant, ran.call.id) == "failed"
        assert intent_state(assistant, ran.call.id) == "failed"
        assert assistant.undoable() == []
        assert sorted(p.name for p in source.iterdir()) == names
    finally:
        assistant.close()


def test_a_finished_batch_keeps_its_own_result_for_undo(tmp_path: Path) -> None:
    source, destination, names = make_files(tmp_path, 4)
    assistant = open_assistant(open_database(tmp_path / "hearth.db"))
    try:
        ran = run_batch(assistant, folder=str(source), destination=str(destination))
        assert ran.outcome == "executed" and ran.undoable
        assert (last_outcome(assistant, ran.call.id), intent_state(assistant, ran.call.id)) == (
            "executed",
            "executed",
        )
        (entry,) = assistant.undoable()
        assert entry.state == "done" and len(entry.result["moved"]) == 4
        assert assistant.undo(ran.call.id).summary == "put back 4 of 4 files"
        assert sorted(p.name for p in source.iterdir()) == names
    finally:
        assistant.close()


def test_a_batch_with_no_undo_failing_half_way_is_partial_not_failed(tmp_path: Path) -> None:
    source, destination, names = make_files(tmp_path, 5)
    assistant = open_assistant(open_database(tmp_path / "hearth.db"))
    try:
        ran = run_batch(
            assistant,
            tool="batch_move_no_undo",
            folder=str(source),
            destination=str(destination),
            fail_at=2,
        )
        assert ran.outcome == "partial" and not ran.undoable
        assert str(destination / names[1]) in ran.result and "Undo" not in ran.result
        assert last_outcome(assistant, ran.call.id) == "partial"
        assert intent_state(assistant, ran.call.id) == "partial"
        assert assistant.undoable() == []
    finally:
        assistant.close()


def test_an_interrupted_batch_is_unknown_everywhere_and_undoable_from_its_steps(
    tmp_path: Path,
) -> None:
    """As a process killed mid-batch leaves it: steps journaled, the last never carried out."""
    source, destination, names = make_files(tmp_path, 5)
    db = open_database(tmp_path / "hearth.db")
    never = {"from": str(source / names[2]), "to": str(destination / names[2])}
    with pytest.raises(KeyboardInterrupt):
        run_batch(open_assistant(db), folder=str(source), destination=str(destination), die_at=2)
    call_id = db.query("SELECT call_id FROM intents")[0]["call_id"]
    db.close()

    after = open_assistant(open_database(tmp_path / "hearth.db"))
    try:
        assert [i.call_id for i in after.unresolved] == [call_id]
        assert intent_state(after, call_id) == "unknown"
        assert [e.outcome for e in after.audit.entries(call_id=call_id)] == [
            "proposed",
            "unknown",
        ]
        (entry,) = after.undoable()
        assert entry.state == "unknown" and entry.result["moved"][-1] == never
        assert after.undo(call_id).summary == "put back 2 of 3 files"
        assert sorted(p.name for p in source.iterdir()) == names
    finally:
        after.close()
