"""Real tools and real stores for agent tests; only the model is scripted."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from hearth.agent import AgentConfig, AllowOnce, Answer, ConsentAsked, Executor, Session, Step
from hearth.consent import ConsentGate, RuleBook
from hearth.generation import ChatModel
from hearth.store import AuditLog, ConversationStore, IntentLog, RuleTable, open_database
from hearth.tools import Tool, ToolRegistry, tool


@dataclass
class Machine:
    """A pretend laptop whose state the tools really change."""

    wifi: bool = False
    volume: int = 40
    sent: list[dict[str, str]] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    inbox: dict[str, str] = field(default_factory=dict)


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


class World:
    """The stores, the gate and the tools, over a real database in HEARTH_HOME."""

    def __init__(self) -> None:
        self.machine = Machine()
        self.db = open_database()
        self.audit = AuditLog(self.db)
        self.intents = IntentLog(self.db)
        self.conversations = ConversationStore(self.db)
        self.rules = RuleBook(RuleTable(self.db))
        self.gate = ConsentGate(self.rules)
        self.registry = ToolRegistry()
        for item in build_tools(self.machine):
            self.registry.add(item)

    def session(
        self, model: ChatModel, *, interactive: bool = True, config: AgentConfig | None = None
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
            config=config,
            on_message=lambda m: self.conversations.append(conversation, m),
        )

    def allow(self, tool_name: str, arguments: dict[str, Any], scope: str | None = None) -> None:
        item = self.registry.get(tool_name)
        assert item is not None
        self.gate.grant(item, item.validate(arguments), "always", scope=scope)


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
