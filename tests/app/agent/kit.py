"""Real tools and real stores for agent tests; only the model is scripted."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from hearth.agent import AgentConfig, AllowOnce, Answer, ConsentAsked, Executor, Session, Step
from hearth.consent import ConsentGate, RuleBook
from hearth.generation import ChatModel
from hearth.messages import Message
from hearth.paths import data_dir
from hearth.store import AuditLog, ConversationStore, IntentLog, RuleTable, open_database
from hearth.tools import Tool, ToolRegistry, tool

# Each request carries the moment (`turn_context`), so a seeded real model's reply repeats only
# at a fixed one: with the wall clock, one moment in twenty turned a forced call into another.
FIXED_MOMENT = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)


def fixed_clock() -> datetime:
    return FIXED_MOMENT


@dataclass
class Machine:
    """A pretend laptop whose state the tools really change."""

    wifi: bool = False
    volume: int = 40
    sent: list[dict[str, str]] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    inbox: dict[str, str] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)  # every file the file tools changed


def build_tools(machine: Machine) -> list[Tool]:
    @tool(effect="system", keywords=("wifi", "network", "internet", "offline"))
    def wifi_set(enabled: bool) -> str:
        """Turn Wi-Fi on or off.

        Args:
            enabled: True to turn Wi-Fi on, False to turn it off.
        """
        machine.wifi = enabled
        return f"Wi-Fi is {'on' if enabled else 'off'}"

    @tool(
        effect="system",
        scope="setting",
        scope_kind="setting",
        range_arg="level",
        keywords=("volume", "sound", "louder", "quieter", "mute"),
    )
    def volume_set(setting: str, level: Annotated[int, Field(ge=0, le=100)]) -> str:
        """Set the speaker volume.

        Args:
            setting: Always "volume".
            level: Volume in percent, 0 to 100.
        """
        machine.volume = level
        return f"volume is {level}"

    @tool(effect="send", scope="to", scope_kind="recipient", keywords=("mail", "email", "send"))
    def mail_send(to: str, subject: str, body: str) -> str:
        """Send an email.

        Args:
            to: The recipient's address.
            subject: The subject line.
            body: The message text.
        """
        if not machine.wifi:
            raise ConnectionError("network is unreachable: Wi-Fi is off")
        machine.sent.append({"to": to, "subject": subject, "body": body})
        return f"sent to {to}"

    @tool(effect="read", keywords=("mail", "email", "inbox", "read"))
    def mail_read(subject: str) -> str:
        """Read an email from the inbox by its subject.

        Args:
            subject: The subject of the email to read.
        """
        return machine.inbox.get(subject, f"no email with subject {subject!r}")

    @tool(effect="write", keywords=("note", "notes", "remember", "jot"))
    def notes_add(title: str, text: str) -> str:
        """Save a note.

        Args:
            title: A short title.
            text: The note's text.
        """
        machine.notes[title] = text
        return f"saved note {title!r}"

    return [wifi_set, volume_set, mail_send, mail_read, notes_add]


# Declared as connectors will: a move touches its sources and its destination.
MOVE_SCOPE: tuple[str, ...] | str = ("sources", "destination")


def build_file_tools(machine: Machine) -> list[Tool]:
    """File tools that really change a folder tree; the gate's rules are all that guard it."""

    @tool(effect="read", scope="path", scope_kind="path", keywords=("file", "read", "note"))
    def files_read(path: str) -> str:
        """Read a text file.

        Args:
            path: Full path of the file.
        """
        return Path(path).read_text(encoding="utf-8")

    @tool(effect="read", scope="folder", scope_kind="path", keywords=("list", "folder"))
    def files_list(folder: str) -> dict[str, Any]:
        """List a folder's files and subfolders.

        Args:
            folder: Full path of the folder.
        """
        entries = [
            {"name": item.name, "kind": "folder" if item.is_dir() else "file"}
            for item in sorted(Path(folder).iterdir())
        ]
        return {"folder": folder, "entries": entries}

    @tool(effect="write", scope=MOVE_SCOPE, scope_kind="path", keywords=("move", "tidy"))
    def files_move(sources: list[str], destination: str) -> str:
        """Move files or folders into another folder.

        Args:
            sources: Full paths of the files or folders to move.
            destination: Full path of the folder to move them into.
        """
        for source in sources:
            shutil.move(source, Path(destination) / Path(source).name)
            machine.changes.append(f"moved {source}")
        return f"moved {len(sources)} item(s)"

    @tool(effect="write", scope="paths", scope_kind="path", keywords=("trash", "delete"))
    def files_trash(paths: list[str]) -> str:
        """Move files or folders to the trash.

        Args:
            paths: Full paths of the files or folders to trash.
        """
        for path in paths:
            if Path(path).is_dir():
                shutil.rmtree(path)
            else:
                Path(path).unlink()
            machine.changes.append(f"trashed {path}")
        return f"trashed {len(paths)} item(s)"

    @tool(effect="write", scope="path", scope_kind="path", keywords=("rename",))
    def files_rename(path: str, new_name: str) -> str:
        """Rename a file or folder in place.

        Args:
            path: Full path of the file or folder.
            new_name: The new name only.
        """
        Path(path).rename(Path(path).with_name(new_name))
        machine.changes.append(f"renamed {path}")
        return f"renamed to {new_name}"

    @tool(effect="write", scope="path", scope_kind="path", keywords=("write", "save"))
    def files_write(path: str, text: str) -> str:
        """Write text to a file.

        Args:
            path: Full path of the file.
            text: The text to write.
        """
        Path(path).write_text(text, encoding="utf-8")
        machine.changes.append(f"wrote {path}")
        return f"wrote {path}"

    return [files_read, files_list, files_move, files_trash, files_rename, files_write]


@dataclass(frozen=True)
class Desk:
    """A home folder with Documents (todo.md, Invoices/a.pdf and b.pdf, Old/) and Archive/."""

    home: Path

    @classmethod
    def make(cls) -> Desk:
        home = data_dir().parent / "desk"
        for folder in ("Documents/Invoices", "Documents/Old", "Archive"):
            (home / folder).mkdir(parents=True, exist_ok=True)
        (home / "Documents" / "todo.md").write_text("- buy milk\n", encoding="utf-8")
        for name in ("a.pdf", "b.pdf"):
            (home / "Documents" / "Invoices" / name).write_text(name, encoding="utf-8")
        return cls(home)

    @property
    def docs(self) -> Path:
        return self.home / "Documents"

    @property
    def invoices(self) -> Path:
        return self.docs / "Invoices"

    def tree(self) -> dict[str, str]:
        """Every file under home and its text: what an executed side effect would change."""
        return {
            str(path.relative_to(self.home)): path.read_text(encoding="utf-8")
            for path in sorted(self.home.rglob("*"))
            if path.is_file()
        }


class World:
    """The stores, the gate and the tools, over a real database in HEARTH_HOME."""

    def __init__(self, *, files: bool = False) -> None:
        self.machine = Machine()
        self.desk = Desk.make() if files else None
        self.db = open_database()
        self.audit = AuditLog(self.db)
        self.intents = IntentLog(self.db)
        self.conversations = ConversationStore(self.db)
        self.rules = RuleBook(RuleTable(self.db))
        self.gate = ConsentGate(self.rules)
        self.registry = ToolRegistry()
        for item in build_tools(self.machine):
            self.registry.add(item)
        for item in build_file_tools(self.machine) if files else []:
            self.registry.add(item)

    def session(
        self,
        model: ChatModel,
        *,
        interactive: bool = True,
        config: AgentConfig | None = None,
        history: Sequence[Message] = (),
    ) -> Session:
        conversation = self.conversations.create("test")
        executor = Executor(
            self.registry, self.gate, self.audit, self.intents, interactive=interactive
        )
        return Session(
            model,
            list(self.registry),
            executor,
            conversation_id=conversation,
            history=history,
            config=config,
            on_message=lambda m: self.conversations.append(conversation, m),
        )

    def allow(
        self,
        tool_name: str,
        arguments: dict[str, Any],
        scope: str | None = None,
        *,
        after_untrusted: bool = False,
    ) -> None:
        item = self.registry.get(tool_name)
        assert item is not None
        arguments = json.loads(json.dumps(item.validate(arguments), default=str))
        self.gate.grant(item, arguments, "always", scope=scope, after_untrusted=after_untrusted)


def drive(steps: Iterable[Step], answer: Callable[[ConsentAsked], Answer] | None) -> list[Step]:
    """Consume a turn like a UI would, answering consent questions as they come."""
    seen = []
    for step in steps:
        seen.append(step)
        if isinstance(step, ConsentAsked):
            step.request.answer(answer(step) if answer else AllowOnce())
    return seen


def of(steps: Sequence[Step], kind: type) -> list[Any]:
    return [step for step in steps if isinstance(step, kind)]
