"""The composition root: stores, rules, gate, tools and a model, wired once for any front end."""

from __future__ import annotations

from collections.abc import Iterable

from hearth.agent import AgentConfig, Executor, Session
from hearth.consent import ConsentGate, Rule, RuleBook
from hearth.engine.types import ChatModel, Message
from hearth.plugins import PluginReport, load_plugins
from hearth.store import (
    AuditLog,
    ConversationStore,
    Database,
    Intent,
    IntentLog,
    RuleTable,
    open_database,
)
from hearth.tools import ToolRegistry


class Assistant:
    """Everything Hearth needs to hold conversations; the CLI and the desktop UI share it."""

    def __init__(
        self,
        model: ChatModel,
        *,
        database: Database | None = None,
        plugins: Iterable[object] = (),
        entry_points: bool = True,
    ) -> None:
        self.model = model
        self.db = database or open_database()
        self.conversations = ConversationStore(self.db)
        self.audit = AuditLog(self.db)
        self.intents = IntentLog(self.db)
        self.rules = RuleBook(RuleTable(self.db))
        self.gate = ConsentGate(self.rules)
        self.tools = ToolRegistry()
        self.plugins: PluginReport = load_plugins(
            self.tools, plugins=plugins, entry_points=entry_points
        )
        # Side effects a previous run started but never finished: surfaced, never retried.
        self.unresolved: list[Intent] = self.intents.reconcile()

    def session(
        self,
        conversation_id: int | None = None,
        *,
        title: str = "New conversation",
        interactive: bool = True,
        config: AgentConfig | None = None,
    ) -> Session:
        """Open a conversation (a new one by default) with its history and taint restored."""
        if conversation_id is None:
            conversation_id = self.conversations.create(title)
        history = self.conversations.messages(conversation_id)
        executor = Executor(
            self.tools, self.gate, self.audit, self.intents, interactive=interactive
        )
        for message in history:
            if message.role == "user":
                executor.taint.add_user_text(message.content)
            elif message.role == "tool":
                executor.taint.add_untrusted(message.content, f"{message.name} result")
        store_id = conversation_id
        return Session(
            self.model,
            list(self.tools),
            executor,
            conversation_id=conversation_id,
            history=history,
            config=config,
            on_message=lambda m: self._persist(store_id, m),
        )

    def allow(self, rule: Rule) -> Rule:
        """Add a rule (e.g. from `--allow`); it takes effect for the next call."""
        return self.rules.add(rule)

    def _persist(self, conversation_id: int, message: Message) -> None:
        self.conversations.append(conversation_id, message)

    def close(self) -> None:
        self.model.close()
        self.db.close()
