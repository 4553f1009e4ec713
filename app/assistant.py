"""The composition root and the one door: every front end reaches the core through `Assistant`.

It wires stores, rules, gate, tools, connectors and a model once, and offers the operations a
front end needs: hold a conversation, answer and change consent, read the activity, undo, reach
the granted folders. Front ends never touch a connector or a store directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from threading import Lock
from typing import TYPE_CHECKING, Literal, TextIO

from hearth.agent import AgentConfig, Executor, Session
from hearth.consent import ConsentGate, Rule, RuleBook
from hearth.consent.permissions import Permissions
from hearth.errors import HearthError
from hearth.folders import FolderAccess
from hearth.generation import ChatModel
from hearth.messages import Message
from hearth.plugins.connector import Connector
from hearth.plugins.plugin_set import PluginSet
from hearth.plugins.report import PluginFailure, PluginInfo, PluginReport
from hearth.store import (
    AuditEntry,
    AuditLog,
    Conversation,
    ConversationStore,
    Database,
    Intent,
    IntentLog,
    RuleTable,
    UndoEntry,
    UndoLog,
    open_database,
    recover,
)
from hearth.store.conversations import UNTITLED
from hearth.store.history import StoredConversation, read_conversation
from hearth.tools import ToolRegistry
from hearth.undoing import Undone, undo_call

if TYPE_CHECKING:
    from hearth.models.library import Models
    from hearth.voice.voice import Voice


class StartupStep(StrEnum):
    """What `Assistant.open` is doing, in the words a front end shows."""

    DATABASE = "Opening your conversations and activity"
    PLUGINS = "Loading plugins"
    RECOVERY = "Checking for interrupted actions"
    CONNECTORS = "Starting connectors"


class NoModelLoaded(HearthError):
    """A conversation needs a model, and none is loaded yet."""

    def __init__(self) -> None:
        super().__init__(
            "No model is loaded. Choose one under Models (or run `hearth models list`)."
        )


class Assistant:
    """Everything Hearth needs to hold conversations; the CLI and the desktop UI share it.

    `models` and `voice` are the doors to model files and voice input, as `permissions` is to
    the user's rules; making them reads nothing.
    """

    def __init__(
        self,
        model: ChatModel | None,
        db: Database,
        plugin_set: PluginSet,
        unresolved: list[Intent],
        *,
        window: bool = False,
    ) -> None:
        """Wire parts that are already open; `Assistant.open` is how a front end gets one."""
        self.model = model
        self._window = window
        self._parts_lock = Lock()
        self._models: Models | None = None
        self._voice: Voice | None = None
        self.db = db
        self.conversations = ConversationStore(db)
        self.audit = AuditLog(db)
        self.intents = IntentLog(db)
        self.undo_log = UndoLog(db)
        self.rules = RuleBook(RuleTable(db))
        self.gate = ConsentGate(self.rules)
        self.plugin_set = plugin_set
        self.tools: ToolRegistry = plugin_set.registry
        self.plugins: PluginReport = plugin_set.report
        self.permissions = Permissions(self.rules, self.tools, self.plugins.connectors)
        self.unresolved = unresolved

    @classmethod
    def open(
        cls,
        model: ChatModel | None = None,
        *,
        database: Database | None = None,
        plugins: Iterable[object] = (),
        entry_points: bool = True,
        user_plugins: bool = True,
        start_connectors: bool = True,
        window: bool = False,
        progress: Callable[[StartupStep], None] | None = None,
        defer_plugins: bool = False,
    ) -> Assistant:
        """Open the database, load the plugins, recover interrupted calls, start connectors.

        `progress` hears each step as it begins, so a front end can show what is loading.
        `window`: the desktop app, whose voice input leaves a core free so the window stays quick.
        `defer_plugins`: the plugins load (and their connectors start) only in `load_plugins()`,
        which a front end runs off its main thread; a session waits for it.
        """
        say = progress or (lambda _step: None)
        say(StartupStep.DATABASE)
        db = database or open_database()
        # Held while this assistant is open: another process's recovery (the window's, a
        # terminal command's) then leaves the calls this one runs alone.
        db.claim_owner()
        if not defer_plugins:
            say(StartupStep.PLUGINS)
        plugin_set = PluginSet(
            ToolRegistry(),
            plugins=plugins,
            entry_points=entry_points,
            user_files=user_plugins,
            load=not defer_plugins,
        )
        say(StartupStep.RECOVERY)
        # Calls a run that died started but never finished: marked `unknown` in the intents
        # and the audit log, their journaled steps kept for undo; surfaced, never retried.
        # Those of another live process (the window beside `hearth ask`) are left running.
        unresolved = recover(IntentLog(db), AuditLog(db), UndoLog(db))
        assistant = cls(model, db, plugin_set, unresolved, window=window)
        if start_connectors:
            if not defer_plugins:
                say(StartupStep.CONNECTORS)
            assistant.start_connectors()  # deferred: each starts as its plugin loads
        return assistant

    @property
    def plugins_loaded(self) -> bool:
        """Whether the plugins' tools and connectors are all here (see `load_plugins`)."""
        return self.plugin_set.loaded

    def load_plugins(self) -> None:
        """Load the plugins deferred by `open(defer_plugins=True)` and start their connectors
        if connectors run; returns at once once loaded, and waits while another thread loads."""
        self.plugin_set.load()

    @property
    def models(self) -> Models:
        """The model catalog, files, loading and thread settings."""
        with self._parts_lock:
            if self._models is None:
                # Here, not at the top: the models code loads the hub client, and a command
                # that never touches a model file (`hearth --help`) should not pay for it.
                from hearth.models.library import Models

                self._models = Models()
            return self._models

    @property
    def voice(self) -> Voice:
        """Voice input: settings, microphones, speech models, transcripts."""
        with self._parts_lock:
            if self._voice is None:
                from hearth.voice.voice import Voice  # like `models`: only when used

                self._voice = Voice(window=self._window)
            return self._voice

    def use_model(self, model: ChatModel) -> None:
        """Switch models; sessions opened afterwards use the new one."""
        old, self.model = self.model, model
        if old is not None and old is not model:
            old.close()

    def session(
        self,
        conversation_id: int | None = None,
        *,
        title: str = UNTITLED,
        interactive: bool = True,
        config: AgentConfig | None = None,
    ) -> Session:
        """Open a conversation (a new one by default) with its history and taint restored.

        The taint comes back as it was: each tool output under the label naming what was read.
        A new conversation left `UNTITLED` is named by its first message; each turn's end
        records the tokens it fills, so the conversation list shows both for every front end.
        """
        if self.model is None:
            raise NoModelLoaded()
        self.load_plugins()  # the turn chooses among every connector's tools
        if conversation_id is None:
            conversation_id = self.conversations.create(title)
        history = self.conversations.messages(conversation_id)
        config = config or AgentConfig()
        executor = Executor(
            self.tools,
            self.gate,
            self.audit,
            self.intents,
            interactive=interactive,
            consent_timeout=config.consent_timeout_s,
            undo_log=self.undo_log,
        )
        # The session restores the conversation's taint from its history, item by item.
        store_id = conversation_id
        return Session(
            self.model,
            self.tools,
            executor,
            conversation_id=conversation_id,
            history=history,
            config=config,
            on_message=lambda m: self._persist(store_id, m),
            on_turn_done=lambda done: self.conversations.set_tokens(
                store_id, done.stats.context_used
            ),
        )

    def allow(self, rule: Rule) -> Rule:
        """Add a rule (e.g. from `--allow`); it takes effect for the next call."""
        return self.rules.add(rule)

    def list_conversations(self, search: str = "") -> list[Conversation]:
        """Every conversation, newest first; with `search`, those whose text holds it."""
        return self.conversations.search(search) if search else self.conversations.list()

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        self.conversations.rename(conversation_id, title)

    def delete_conversation(self, conversation_id: int) -> None:
        """Forget a conversation; its audit history stays."""
        self.conversations.delete(conversation_id)

    def read_conversation(self, conversation_id: int) -> StoredConversation:
        """A conversation with each call's recorded fate, for showing it again."""
        self.load_plugins()  # a call's card shows its tool
        return read_conversation(
            self.conversations, self.audit, self.undo_log, self.tools, conversation_id
        )

    def activity(self, *, limit: int | None = None) -> list[AuditEntry]:
        """The audit log, oldest first; with `limit`, the most recent entries."""
        return self.audit.entries(limit=limit)

    def export_activity(
        self,
        fp: TextIO,
        format: Literal["json", "csv"],
        entries: Sequence[AuditEntry] | None = None,
    ) -> int:
        return self.audit.export(fp, format, entries=entries)

    def connectors(self) -> list[Connector]:
        return list(self.plugins.connectors)

    def plugin_failures(self) -> list[PluginFailure]:
        return list(self.plugins.failed)

    def folders(self) -> FolderAccess | None:
        """The connector that keeps granted folders, if one is installed."""
        return next((c for c in self.plugins.connectors if isinstance(c, FolderAccess)), None)

    def undoable(self, limit: int | None = None) -> list[UndoEntry]:
        """Actions that can still be reverted, newest first."""
        return self.undo_log.pending(limit)

    def undo(self, call_id: str) -> Undone:
        """Revert one action. The user asked for it, so it is recorded but not gated."""
        self.load_plugins()
        return undo_call(self.tools, self.audit, self.undo_log, call_id)

    def start_connectors(self) -> None:
        """Start each connector's background work; a failure is reported, not raised."""
        self.plugin_set.start_connectors()

    def stop_connectors(self) -> None:
        self.plugin_set.stop_connectors()

    def plugin_infos(self) -> list[PluginInfo]:
        """Every plugin Hearth knows of: where it comes from, whether it runs, what it offers."""
        return self.plugin_set.infos()

    def set_plugin_enabled(self, name: str, enabled: bool) -> PluginInfo:
        """Turn a plugin on or off now and for later starts; its tools and connectors come or
        go at once. Raises `PluginError` for an unknown name."""
        return self.plugin_set.set_enabled(name, enabled)

    def reload_plugins(self) -> list[PluginInfo]:
        """Load the user's plugin files again (new, changed and deleted ones)."""
        return self.plugin_set.reload()

    def watch_plugins(self, on_change: Callable[[], None] | None = None) -> None:
        """Reload the plugin files whenever they change, then call `on_change` from the
        watcher's thread; `close()` stops watching."""
        self.plugin_set.watch(on_change)

    def _persist(self, conversation_id: int, message: Message) -> None:
        self.conversations.append(conversation_id, message)

    def close(self) -> None:
        self.plugin_set.close()
        if self.model is not None:
            self.model.close()
        self.db.close()
