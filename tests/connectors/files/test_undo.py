"""Undo of real file actions, run through the agent (consent, audit, undo journal)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hearth import UndoFailed
from hearth.agent import AgentConfig, AllowOnce, ToolRan
from hearth.assistant import Assistant
from hearth.cli.main import cli
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.messages import CancelToken
from hearth.undoing import Undone
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin
from tests.fixtures.spoofing import A_FEW, assert_safe, unstyled


@pytest.fixture
def run(connector: FilesConnector) -> Iterator[Callable[..., Assistant]]:
    """Run one agent turn in which the scripted model makes the given calls, approved once."""
    opened: list[Assistant] = []

    def turn(*calls: tuple[str, dict[str, Any]], ask: str = "tidy up my files") -> Assistant:
        model = ScriptedModel([Reply(calls=list(calls)), Reply(text="Done.")])
        assistant = Assistant.open(
            model, plugins=[FilesPlugin(connector)], entry_points=False, start_connectors=False
        )
        opened.append(assistant)
        session = assistant.session(config=AgentConfig(tool_budget=100_000))
        steps = drive(session.run_turn(ask, CancelToken()), lambda _: AllowOnce())
        ran = of(steps, ToolRan)
        assert [r.outcome for r in ran] == ["executed"] * len(calls), ran
        assert all(r.undoable for r in ran)
        return assistant

    yield turn
    for assistant in opened:
        assistant.db.close()


def undo_last(assistant: Assistant, count: int) -> list[Undone]:
    """Undo the `count` most recent actions, newest first, as `hearth undo` does."""
    return [assistant.undo(entry.call_id) for entry in assistant.undoable(count)]


def test_undo_moves_back(run: Callable[..., Assistant], documents: Path) -> None:
    (documents / "archive").mkdir()
    sources = [str(documents / "notes.txt"), str(documents / "invoice.pdf")]
    assistant = run(("files.move", {"sources": sources, "destination": str(documents / "archive")}))
    assert not (documents / "notes.txt").exists()
    [entry] = assistant.undoable()
    assert entry.summary.startswith("Move 2 items")
    [undone] = undo_last(assistant, 1)
    assert (documents / "notes.txt").exists() and (documents / "invoice.pdf").exists()
    assert not any((documents / "archive").iterdir())
    assert undone.summary == "moved 2 items back"
    assert assistant.undoable() == []
    outcomes = [(e.call_id, e.outcome) for e in assistant.audit.entries()]
    assert (f"undo:{entry.call_id}", "executed") in outcomes


def test_undo_restores_trash(run: Callable[..., Assistant], documents: Path) -> None:
    text = (documents / "letter.docx").read_bytes()
    assistant = run(
        ("files.trash", {"paths": [str(documents / "letter.docx")]}), ask="trash the letter"
    )
    assert not (documents / "letter.docx").exists()
    undo_last(assistant, 1)
    assert (documents / "letter.docx").read_bytes() == text


def test_undo_of_rename_create_and_write(run: Callable[..., Assistant], documents: Path) -> None:
    assistant = run(
        ("files.rename", {"path": str(documents / "notes.txt"), "new_name": "budget.txt"}),
        ("files.create_folder", {"path": str(documents / "2026")}),
        ("files.write_text", {"path": str(documents / "todo.txt"), "text": "buy milk"}),
        ask="rename the notes, create a folder 2026 and write a todo file",
    )
    assert len(assistant.undoable()) == 3
    done = undo_last(assistant, 3)
    assert [d.tool for d in done] == ["files.write_text", "files.create_folder", "files.rename"]
    assert (documents / "notes.txt").exists() and not (documents / "budget.txt").exists()
    assert not (documents / "2026").exists() and not (documents / "todo.txt").exists()


def test_undo_of_overwrite_puts_the_old_text_back(
    run: Callable[..., Assistant], documents: Path, library: FileLibrary
) -> None:
    library.store.save("files", library.settings().model_copy(update={"allow_overwrite": True}))
    path = str(documents / "notes.txt")
    assistant = run(("files.write_text", {"path": path, "text": "new", "overwrite": True}))
    assert Path(path).read_text() == "new"
    undo_last(assistant, 1)
    assert Path(path).read_text().startswith("Remember the quarterly budget")


def test_undo_never_clobbers(run: Callable[..., Assistant], documents: Path) -> None:
    assistant = run(("files.rename", {"path": str(documents / "notes.txt"), "new_name": "a.txt"}))
    (documents / "notes.txt").write_text("a new file the user made meanwhile")
    with pytest.raises(UndoFailed, match="nothing was replaced"):
        undo_last(assistant, 1)
    assert (documents / "notes.txt").read_text().startswith("a new file")
    assert len(assistant.undoable()) == 1  # still there to retry once the way is clear


def test_undo_of_a_changed_write_is_refused(run: Callable[..., Assistant], documents: Path) -> None:
    path = documents / "todo.txt"
    assistant = run(("files.write_text", {"path": str(path), "text": "buy milk"}))
    path.write_text("buy milk and eggs")
    with pytest.raises(UndoFailed, match="changed since"):
        undo_last(assistant, 1)
    assert path.read_text() == "buy milk and eggs"


def test_hearth_undo_command(run: Callable[..., Assistant], documents: Path) -> None:
    (documents / "archive").mkdir()
    run(
        (
            "files.move",
            {"sources": [str(documents / "notes.txt")], "destination": str(documents / "archive")},
        )
    )
    # The command loads the built-in files plugin, which reads the same settings and index.
    runner = CliRunner()
    listed = runner.invoke(cli, ["undo", "--list"])
    assert "files.move" in listed.output and "Move 1 item" in listed.output
    result = runner.invoke(cli, ["undo"])
    assert result.exit_code == 0, result.output
    assert "Undone: Move 1 item" in result.output
    assert (documents / "notes.txt").exists()
    assert "Nothing to undo" in runner.invoke(cli, ["undo"]).output


@pytest.mark.parametrize("spoof", A_FEW)
def test_hearth_undo_shows_outside_names_escaped(
    run: Callable[..., Assistant], documents: Path, spoof: str
) -> None:
    name = spoof.replace("/", "_")
    (documents / name).write_text("from outside")
    run(("files.trash", {"paths": [str(documents / name)]}))
    runner = CliRunner()
    # color: click would strip a spoof's ESC sequences from what is not a terminal
    for arguments in (["undo", "--list"], ["undo"]):
        done = runner.invoke(cli, arguments, color=True)
        assert done.exit_code == 0, done.output
        assert_safe(unstyled(done.output), name, lines=True)
        assert done.output.count("\n") == 1
    assert (documents / name).exists()


def test_undo_of_trash_into_a_folder_swapped_for_a_link_or_revoked_is_refused(
    connector: FilesConnector, documents: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    [trash] = [tool for tool in connector.tools if tool.name == "files.trash"]
    trashed = trash.invoke({"paths": [str(documents / "projects" / "plan.md")]})
    (documents / "projects").rename(tmp_path / "projects-was")
    (documents / "projects").symlink_to(outside)
    with pytest.raises(UndoFailed, match="symbolic link"):
        connector.restore_trashed({}, trashed)
    assert not any(outside.iterdir())
    (documents / "projects").unlink()
    (tmp_path / "projects-was").rename(documents / "projects")
    connector.revoke(documents)
    with pytest.raises(UndoFailed, match="outside the folders you granted"):
        connector.restore_trashed({}, trashed)
    assert not (documents / "projects" / "plan.md").exists()
    connector.grant(documents)
    connector.restore_trashed({}, trashed)
    assert (documents / "projects" / "plan.md").read_text().startswith("# Plan")
