"""Per-item journal of the real file tools: a batch stopped half-way is `partial`, and undo puts
back exactly what it changed, leaving alone an item that never changed."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hearth import UndoFailed
from hearth.agent import AgentConfig, AllowOnce, ToolRan
from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector, trash, writing
from hearth.connectors.files.fsops import parent_of
from hearth.connectors.files.results import Moved, Trashed, TrashedItem
from hearth.connectors.files.roots import locate
from hearth.connectors.files.transfer import move_entry
from hearth.store import Database
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin

MoveEntry = Callable[[int, str, int, str], None]


def make_files(folder: Path, count: int) -> dict[str, bytes]:
    """`count` files with distinct contents in a new `folder`; their names and contents."""
    folder.mkdir(parents=True)
    contents = {f"note-{n:02}.txt": f"note {n} of {folder}\n".encode() for n in range(count)}
    for name, content in contents.items():
        (folder / name).write_bytes(content)
    return contents


def contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def open_assistant(
    connector: FilesConnector, database: Database | None = None, *, start: bool = False
) -> Assistant:
    return Assistant.open(
        ScriptedModel([]),
        database=database,
        plugins=[FilesPlugin(connector)],
        entry_points=False,
        start_connectors=start,
    )


def run_call(assistant: Assistant, tool: str, **arguments: Any) -> ToolRan:
    """One turn in which the model makes one call, which the user allows once."""
    assert isinstance(assistant.model, ScriptedModel)
    assistant.model.replies.extend([Reply(calls=[(tool, arguments)]), Reply("Done.")])
    session = assistant.session(config=AgentConfig(tool_budget=100_000))
    steps = drive(session.run_turn("tidy up: move or trash these files"), lambda _: AllowOnce())
    (ran,) = of(steps, ToolRan)
    return ran  # type: ignore[no-any-return]


def outcomes(assistant: Assistant, call_id: str) -> list[str]:
    return [entry.outcome for entry in assistant.audit.entries(call_id=call_id)]


def on_call(count: int, before: Callable[[int, str, int, str], None], real: MoveEntry) -> MoveEntry:
    """`real`, doing `before` first on its `count`th call."""
    calls: list[str] = []

    def patched(folder: int, name: str, target_folder: int, target: str) -> None:
        calls.append(name)
        if len(calls) == count:
            before(folder, name, target_folder, target)
        real(folder, name, target_folder, target)

    return patched


def appear(folder: int, name: str, target_folder: int, target: str) -> None:
    """Another program makes a file where the item is about to go."""
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, dir_fd=target_folder))


def fail(folder: int, name: str, target_folder: int, target: str) -> None:
    raise OSError(errno.EIO, os.strerror(errno.EIO))


def test_a_move_stopped_at_item_4_is_partial_and_undo_puts_back_exactly_the_moved_ones(
    connector: FilesConnector, documents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox, archive = documents / "inbox", documents / "archive"
    before = make_files(inbox, 8)
    archive.mkdir()
    names = sorted(before)
    monkeypatch.setattr(writing, "move_entry", on_call(4, appear, move_entry))
    assistant = open_assistant(connector)
    try:
        sources = [str(inbox / name) for name in names]
        ran = run_call(assistant, "files.move", sources=sources, destination=str(archive))
        assert ran.outcome == "partial" and ran.undoable, ran.result
        assert f"already exists, nothing was replaced: {archive / names[3]}" in ran.result
        assert outcomes(assistant, ran.call.id) == ["proposed", "partial"]
        assert sorted(contents(archive)) == names[:4]  # three moved, one someone else's
        (entry,) = assistant.undoable()
        assert entry.call_id == ran.call.id and entry.state == "partial"
        recorded = [{"from": str(inbox / n), "to": str(archive / n)} for n in names[:4]]
        assert entry.result == {"moved": recorded, "not_moved": recorded[3:]}

        done = assistant.undo(ran.call.id)
        assert done.summary == "moved 3 items back; 1 never moved, so left where they are"
        assert contents(inbox) == before
        assert contents(archive) == {names[3]: b""}  # the other program's file stays
        assert outcomes(assistant, f"undo:{ran.call.id}") == ["proposed", "executed"]
        assert assistant.undoable() == []
    finally:
        assistant.close()


def test_a_trash_stopped_at_item_4_is_partial_and_undo_restores_exactly_the_trashed_ones(
    connector: FilesConnector, documents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = documents / "inbox"
    before = make_files(inbox, 8)
    names = sorted(before)
    monkeypatch.setattr(trash, "move_entry", on_call(4, fail, move_entry))
    assistant = open_assistant(connector)
    try:
        ran = run_call(assistant, "files.trash", paths=[str(inbox / name) for name in names])
        assert ran.outcome == "partial" and ran.undoable, ran.result
        assert f"could not move {inbox / names[3]} to the trash" in ran.result
        assert outcomes(assistant, ran.call.id) == ["proposed", "partial"]
        assert sorted(contents(inbox)) == names[3:]
        (entry,) = assistant.undoable()
        assert entry.state == "partial"
        result = Trashed.model_validate(entry.result)
        assert [Path(item.original).name for item in result.trashed] == names[:4]
        assert result.not_trashed == result.trashed[3:]
        in_trash = [Path(str(item.trash_file)) for item in result.trashed]
        assert [path.exists() for path in in_trash] == [True, True, True, False]
        assert not Path(str(result.trashed[3].info_file)).exists()  # its claim was given up

        done = assistant.undo(ran.call.id)
        assert done.summary == "; ".join(f"restored {inbox / name}" for name in names[:3])
        assert contents(inbox) == before
        assert not any(path.exists() for path in in_trash)
        assert not any(Path(str(item.info_file)).exists() for item in result.trashed)
    finally:
        assistant.close()


def test_undo_of_a_partial_trash_leaves_alone_what_took_a_name_it_chose_meanwhile(
    connector: FilesConnector, documents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2's first name in the trash is taken before it moves in, so it takes another; item 3
    then fails. Undo restores items 1 and 2 and never takes the other file out of the trash."""
    inbox = documents / "inbox"
    before = make_files(inbox, 3)
    names = sorted(before)
    taken: list[str] = []

    def appear_in_trash(folder: int, name: str, target_folder: int, target: str) -> None:
        taken.append(target)
        appear(folder, name, target_folder, target)

    racing = on_call(2, appear_in_trash, move_entry)
    monkeypatch.setattr(trash, "move_entry", on_call(4, fail, racing))
    assistant = open_assistant(connector)
    try:
        ran = run_call(assistant, "files.trash", paths=[str(inbox / name) for name in names])
        assert ran.outcome == "partial", ran.result
        (entry,) = assistant.undoable()
        result = Trashed.model_validate(entry.result)
        first, second = (Path(str(item.trash_file)) for item in result.trashed[1:3])
        assert first.name == taken[0] and first.exists() and second.exists()
        assert result.not_trashed == [result.trashed[1], result.trashed[3]]
        assistant.undo(ran.call.id)
        assert contents(inbox) == before
        assert first.read_bytes() == b"" and not second.exists()
        first.unlink()
    finally:
        assistant.close()


def test_undo_of_a_move_leaves_alone_an_item_that_never_moved(
    connector: FilesConnector, documents: Path
) -> None:
    """As a move killed after journaling its second item leaves it."""
    archive = documents / "archive"
    archive.mkdir()
    (documents / "notes.txt").rename(archive / "notes.txt")
    journaled = Moved(
        moved=[
            {"from": str(documents / "notes.txt"), "to": str(archive / "notes.txt")},
            {"from": str(documents / "invoice.pdf"), "to": str(archive / "invoice.pdf")},
        ]
    )
    summary = connector.move_back({}, journaled)
    assert summary == "moved 1 item back; 1 never moved, so left where they are"
    assert (documents / "notes.txt").exists() and (documents / "invoice.pdf").exists()
    assert not any(archive.iterdir())


def test_undo_of_a_move_refuses_before_moving_anything_when_something_new_took_a_place(
    connector: FilesConnector, documents: Path
) -> None:
    archive = documents / "archive"
    archive.mkdir()
    for name in ("notes.txt", "invoice.pdf"):
        (documents / name).rename(archive / name)
    (documents / "invoice.pdf").write_text("a new file the user made meanwhile")
    journaled = Moved(
        moved=[
            {"from": str(documents / n), "to": str(archive / n)}
            for n in ("notes.txt", "invoice.pdf")
        ]
    )
    with pytest.raises(UndoFailed, match=r"new is at .*invoice\.pdf; nothing was replaced"):
        connector.move_back({}, journaled)
    assert sorted(p.name for p in archive.iterdir()) == ["invoice.pdf", "notes.txt"]
    assert (documents / "invoice.pdf").read_text().startswith("a new file")


def killed_while_trashing(
    connector: FilesConnector, path: Path, monkeypatch: pytest.MonkeyPatch, *, claimed: bool
) -> TrashedItem:
    """Trash `path` as a process killed after journaling it, before it moved: after claiming
    its place in the trash, or before."""
    journaled: list[dict[str, Any]] = []
    real_claim = trash._claim

    def die(*arguments: Any) -> bool:
        if claimed:
            real_claim(*arguments)
        raise KeyboardInterrupt  # stands in for SIGKILL: nothing after this runs

    spot = locate(str(path), connector.library.grants())
    with monkeypatch.context() as patch, parent_of(spot) as folder:
        patch.setattr(trash, "_claim", die)
        with pytest.raises(KeyboardInterrupt):
            trash.move_to_trash(folder, spot, lambda _, item: journaled.append(dict(item)))
    return TrashedItem.model_validate(journaled[0])


def test_undo_of_a_trash_leaves_alone_an_item_that_never_reached_the_trash(
    connector: FilesConnector, documents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = {tool.name: tool for tool in connector.tools}
    first = tools["files.trash"].invoke({"paths": [str(documents / "notes.txt")]}).trashed[0]
    never = killed_while_trashing(connector, documents / "invoice.pdf", monkeypatch, claimed=True)
    assert never.info_file is not None and Path(never.info_file).exists()  # claimed, unused
    assert never.trash_file is not None and not Path(never.trash_file).exists()
    summary = connector.restore_trashed({}, Trashed(trashed=[first, never]))
    assert summary == f"restored {documents / 'notes.txt'}; left {documents / 'invoice.pdf'}"
    assert (documents / "notes.txt").read_text().startswith("Remember")
    assert (documents / "invoice.pdf").read_bytes().startswith(b"%PDF")
    assert not Path(never.info_file).exists()


def test_undo_of_a_trash_leaves_alone_what_took_the_name_it_was_about_to_take(
    connector: FilesConnector, documents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after journaling its name in the trash, before claiming it; another file of the
    same name went to the trash after: the item never left, and the other stays in the trash."""
    tools = {tool.name: tool for tool in connector.tools}
    (documents / "projects" / "notes.txt").write_text("other notes")
    never = killed_while_trashing(connector, documents / "notes.txt", monkeypatch, claimed=False)
    assert never.info_file is not None and not Path(never.info_file).exists()
    later = tools["files.trash"].invoke({"paths": [str(documents / "projects" / "notes.txt")]})
    assert later.trashed[0].trash_file == never.trash_file
    summary = connector.restore_trashed({}, Trashed(trashed=[never]))
    assert summary == f"left {documents / 'notes.txt'}"
    assert (documents / "notes.txt").read_text().startswith("Remember")
    assert Path(str(never.trash_file)).read_text() == "other notes"
    assert Path(str(never.info_file)).exists()  # the other's record
    connector.restore_trashed({}, later)


def test_undo_of_a_trash_never_takes_back_what_came_to_its_place_in_the_trash_from_elsewhere(
    connector: FilesConnector, documents: Path
) -> None:
    """The trash was emptied, then a file of the same name was trashed from another folder."""
    tools = {tool.name: tool for tool in connector.tools}
    (documents / "projects" / "notes.txt").write_text("other notes")
    trashed: Trashed = tools["files.trash"].invoke({"paths": [str(documents / "notes.txt")]})
    (item,) = trashed.trashed
    Path(str(item.trash_file)).unlink()
    Path(str(item.info_file)).unlink()
    later = tools["files.trash"].invoke({"paths": [str(documents / "projects" / "notes.txt")]})
    assert later.trashed[0].trash_file == item.trash_file  # the same name, free again
    with pytest.raises(UndoFailed, match="not what Hearth put there"):
        connector.restore_trashed({}, trashed)
    assert not (documents / "notes.txt").exists()
    assert Path(str(item.trash_file)).read_text() == "other notes"
    connector.restore_trashed({}, later)
    assert (documents / "projects" / "notes.txt").read_text() == "other notes"


def test_undo_of_a_trash_refuses_before_restoring_anything_when_something_new_took_a_place(
    connector: FilesConnector, documents: Path
) -> None:
    tools = {tool.name: tool for tool in connector.tools}
    paths = [str(documents / "notes.txt"), str(documents / "letter.docx")]
    trashed: Trashed = tools["files.trash"].invoke({"paths": paths})
    (documents / "letter.docx").write_text("a new letter")
    with pytest.raises(UndoFailed, match=r"new is at .*letter\.docx; nothing was replaced"):
        connector.restore_trashed({}, trashed)
    assert not (documents / "notes.txt").exists()
    assert all(Path(str(item.trash_file)).exists() for item in trashed.trashed)
    assert (documents / "letter.docx").read_text() == "a new letter"
