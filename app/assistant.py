"""The composition root: stores, rules, gate, tools and a model, wired once for any front end."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass

from hearth.agent import AgentConfig, Executor, Session
from hearth.consent import ConsentGate, Rule, RuleBook
from hearth.engine.types import ChatModel, Message
from hearth.errors import HearthError, UndoFailed
from hearth.plugins import Connector, PluginFailure, PluginReport, load_plugins
from hearth.store import (
    AuditLog,
    ConversationStore,
    Database,
    Intent,
    IntentLog,
    RuleTable,
    UndoEntry,
    UndoLog,
    open_database,
)
from hearth.tools import ToolRegistry


class NoModelLoaded(HearthError):
    """A conversation needs a model, and none is loaded yet."""

    def __init__(self) -> None:
        super().__init__(
            "No model is loaded. Choose one under Models (or run `hearth models list`)."
        )


@dataclass(frozen=True, slots=True)
class Undone:
    """One reverted action: which call, which tool, and what the undo did."""

    call_id: str
    tool: str
    summary: str


class Assistant:
    """Everything Hearth needs to hold conversations; the CLI and the desktop UI share it."""

    def __init__(
        self,
        model: ChatModel | None = None,
        *,
        database: Database | None = None,
        plugins: Iterable[object] = (),
        entry_points: bool = True,
        start_connectors: bool = True,
    ) -> None:
        self.model = model
        self.db = database or open_database()
        self.conversations = ConversationStore(self.db)
        self.audit = AuditLog(self.db)
        self.intents = IntentLog(self.db)
        self.undo_log = UndoLog(self.db)
        self.rules = RuleBook(RuleTable(self.db))
        self.gate = ConsentGate(self.rules)
        self.tools = ToolRegistry()
        self.plugins: PluginReport = load_plugins(
            self.tools, plugins=plugins, entry_points=entry_points
        )
        # Side effects a previous run started but never finished: surfaced, never retried.
        self.unresolved: list[Intent] = self.intents.reconcile()
        self._started: list[Connector] = []
        if start_connectors:
            self.start_connectors()

    def use_model(self, model: ChatModel) -> None:
        """Switch models; sessions opened afterwards use the new one."""
        old, self.model = self.model, model
        if old is not None and old is not model:
            old.close()

    def session(
        self,
        conversation_id: int | None = None,
        *,
        title: str = "New conversation",
        interactive: bool = True,
        config: AgentConfig | None = None,
    ) -> Session:
        """Open a conversation (a new one by default) with its history and taint restored."""
        if self.model is None:
            raise NoModelLoaded()
        if conversation_id is None:
            conversation_id = self.conversations.create(title)
        history = self.conversations.messages(conversation_id)
        executor = Executor(
            self.tools,
            self.gate,
            self.audit,
            self.intents,
            interactive=interactive,
            undo_log=self.undo_log,
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

    def undoable(self, limit: int | None = None) -> list[UndoEntry]:
        """Actions that can still be reverted, newest first."""
        return self.undo_log.pending(limit)

    def undo_last(self, count: int = 1) -> list[Undone]:
        """Revert the newest `count` actions, newest first; stops at the first that fails."""
        return [self.undo(entry.call_id) for entry in self.undo_log.pending(count)]

    def undo(self, call_id: str) -> Undone:
        """Revert one action. The user asked for it, so it is recorded but not gated."""
        entry = self.undo_log.get(call_id)
        if entry.undone_at is not None:
            raise UndoFailed(f"{entry.summary} was already undone")
        tool = self.tools.get(entry.tool)
        if tool is None or tool.undo is None:
            raise UndoFailed(f"{entry.tool} is not available any more, so it cannot be undone")
        record_id = f"undo:{call_id}"
        self.audit.append(
            call_id=record_id,
            tool=entry.tool,
            arguments=entry.arguments,
            decision="allow",
            decided_by="user (undo)",
            outcome="proposed",
            conversation_id=entry.conversation_id,
            result_summary=f"undo {entry.summary}",
        )
        started = time.perf_counter()
        try:
            result = tool.undo(entry.arguments, entry.result)
        except Exception as error:
            text = (
                f"{error}" if isinstance(error, HearthError) else f"{type(error).__name__}: {error}"
            )
            self.audit.record_outcome(record_id, "failed", result_summary=text)
            raise UndoFailed(f"Could not undo {entry.summary}: {text}") from error
        summary = result if isinstance(result, str) else json.dumps(result, default=str)
        elapsed = round((time.perf_counter() - started) * 1000)
        self.audit.record_outcome(
            record_id, "executed", result_summary=summary, duration_ms=elapsed
        )
        self.undo_log.mark_undone(call_id, summary)
        return Undone(call_id, entry.tool, summary)

    def start_connectors(self) -> None:
        """Start each connector's background work; a failure is reported, not raised."""
        for connector in self.plugins.connectors:
            if connector.start is None or connector in self._started:
                continue
            try:
                connector.start()
            except Exception as error:
                problem = f"could not start: {type(error).__name__}: {error}"
                self.plugins.failed.append(PluginFailure(connector.name, problem))
                continue
            self._started.append(connector)

    def stop_connectors(self) -> None:
        while self._started:
            connector = self._started.pop()
            if connector.stop is not None:
                connector.stop()

    def _persist(self, conversation_id: int, message: Message) -> None:
        self.conversations.append(conversation_id, message)

    def close(self) -> None:
        self.stop_connectors()
        if self.model is not None:
            self.model.close()
        self.db.close()
