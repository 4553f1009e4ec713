"""Notes: list, search, read and write the Markdown notes in your notes folder.

A complete Hearth plugin in one file, and a template for your own. Install it with

    hearth plugins example > "$(hearth plugins folder)/notes.py"

and it appears as the "notes" connector (`hearth plugins list` shows it). Edit your copy and a
running Hearth reloads it; `hearth plugins disable notes` turns it off.

The notes live in the folder named by the environment variable HEARTH_NOTES_DIR, or in ~/Notes
when that is not set. A note is any `.md` file in that folder or in a folder inside it.

What it shows:
- A connector is a class; each `@tool` method becomes a tool named `notes.<method>` (or the
  `name` given), and its docstring, with an `Args:` line per argument, is what the model reads.
- `effect` says what a call does ("read" only looks, "write" changes your data); `scope` names
  the argument holding the path, so one rule ("allow notes.read in ~/Notes") can cover it.
  Every call asks you until such a rule exists.
- `preview` is what the consent card shows before a write runs; `undo` names the method that
  puts things back (`hearth undo`, or Undo in the app's activity list).
- `ToolFailure` tells the model, in words, why a call could not run.
- It uses only the standard library and `from hearth import ...`: that is the plugin API.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hearth import Connector, ToolFailure, ToolResult, UndoFailed, data_dir, hookimpl, tool

MAX_MATCHES = 20
PREVIEW_CHARS = 400


def notes_folder() -> Path:
    """The folder holding the notes: $HEARTH_NOTES_DIR, or ~/Notes."""
    return Path(os.environ.get("HEARTH_NOTES_DIR") or "~/Notes").expanduser().resolve()


class NoteList(ToolResult):
    folder: str
    notes: list[str]


class Match(ToolResult):
    path: str
    line: int
    text: str


class Matches(ToolResult):
    matches: list[Match]


class Note(ToolResult):
    path: str
    text: str


class Written(ToolResult):
    """A note written; undo checks `sha256` and puts the text kept in `backup` back."""

    path: str
    created: bool
    sha256: str
    backup: str = ""


class NotesConnector(Connector):
    name = "notes"
    title = "Notes"
    description = "List, search, read and write the Markdown notes in your notes folder."
    keywords = ("note", "notes", "markdown", "jot")
    scope_kind = "path"  # every scoped argument below is a full path

    @tool(effect="read", name="notes.list", keywords=("list",))
    def list_notes(self) -> NoteList:
        """List the notes: the notes folder's full path and each note's full path."""
        folder = existing_folder()
        return NoteList(folder=str(folder), notes=[str(p) for p in sorted(folder.rglob("*.md"))])

    @tool(effect="read", scope="folder", keywords=("search", "find"))
    def search(self, words: str, folder: str) -> Matches:
        """Find the lines of notes that contain some words.

        Args:
            words: The words to look for (upper or lower case alike).
            folder: Full path of the notes folder, or of a folder inside it, to search.
        """
        root = inside_notes(folder, note=False)
        wanted = words.casefold()
        found: list[Match] = []
        for path in sorted(root.rglob("*.md")):
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            for number, line in enumerate(lines, start=1):
                if wanted in line.casefold():
                    found.append(Match(path=str(path), line=number, text=line.strip()))
                if len(found) == MAX_MATCHES:
                    return Matches(matches=found)
        return Matches(matches=found)

    @tool(effect="read", scope="path", keywords=("read", "open", "show"))
    def read(self, path: str) -> Note:
        """Read a note.

        Args:
            path: Full path of the note (a .md file in the notes folder).
        """
        target = inside_notes(path)
        if not target.is_file():
            raise ToolFailure(f"There is no note {target}; notes.list shows the notes.")
        return Note(path=str(target), text=target.read_text(encoding="utf-8", errors="replace"))

    @tool(
        effect="write",
        scope="path",
        preview="preview_write",
        undo="undo_write",
        keywords=("write", "save", "create"),
    )
    def write(self, path: str, text: str) -> Written:
        """Write a note, creating it or replacing all of its text.

        Args:
            path: Full path of the note (a .md file in the notes folder).
            text: The note's whole new text, in Markdown.
        """
        target = inside_notes(path)
        if not target.parent.is_dir():
            raise ToolFailure(f"The folder {target.parent} does not exist.")
        backup = ""
        if target.exists():
            kept = data_dir() / "notes-undo" / f"{uuid.uuid4().hex}.md"
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_bytes(target.read_bytes())
            backup = str(kept)
        target.write_text(text, encoding="utf-8")
        return Written(path=str(target), created=not backup, sha256=digest(target), backup=backup)

    def preview_write(self, arguments: Mapping[str, Any]) -> str:
        """The consent card's text: which note, whether it exists, and the start of the text."""
        target = Path(str(arguments["path"]))
        verb = "Replace the text of" if target.exists() else "Create"
        text = str(arguments["text"])
        shown = text[:PREVIEW_CHARS] + ("…" if len(text) > PREVIEW_CHARS else "")
        return f"{verb} {target}:\n\n{shown}"

    def undo_write(self, arguments: Mapping[str, Any], result: Written) -> str:
        """Put the previous text back, or remove a note the write created."""
        target = Path(result.path)
        if not target.is_file() or digest(target) != result.sha256:
            raise UndoFailed(f"{target} has changed since; it was left as it is.")
        if not result.backup:
            target.unlink()
            return f"removed the new note {target}"
        backup = Path(result.backup)
        target.write_bytes(backup.read_bytes())
        backup.unlink()
        return f"put back the previous text of {target}"


def existing_folder() -> Path:
    folder = notes_folder()
    if not folder.is_dir():
        raise ToolFailure(f"The notes folder {folder} does not exist (see HEARTH_NOTES_DIR).")
    return folder


def inside_notes(path: str, *, note: bool = True) -> Path:
    """`path` as a real path inside the notes folder; refused with a reason otherwise."""
    folder = existing_folder()
    given = Path(path).expanduser()
    if not given.is_absolute():
        raise ToolFailure(f"{path!r} is not a full path; notes.list shows the notes' paths.")
    target = given.resolve()
    if not target.is_relative_to(folder):
        raise ToolFailure(f"{target} is outside the notes folder {folder}.")
    if note and target.suffix != ".md":
        raise ToolFailure(f"{target} is not a note: notes are .md files.")
    return target


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@hookimpl
def register_connectors(register: Callable[[Connector], None]) -> None:
    """Hearth calls this when it loads the file: hand it the connector."""
    register(NotesConnector())
