"""Hearth's durable state in one SQLite file: conversations, audit log, intents, rules, undo."""

from hearth.store.audit import AuditLog, ExportFormat
from hearth.store.audit_entry import AuditEntry, Decision, Outcome, Taint, TaintLike
from hearth.store.conversations import Conversation, ConversationStore
from hearth.store.db import Database, DatabaseCorrupt, NotFound, StoreError, open_database
from hearth.store.intents import Intent, IntentLog, IntentState
from hearth.store.recovery import recover
from hearth.store.rules import RuleTable
from hearth.store.undo import Journal, JournalState, Steps, UndoEntry, UndoLog

__all__ = [
    "AuditEntry",
    "AuditLog",
    "Conversation",
    "ConversationStore",
    "Database",
    "DatabaseCorrupt",
    "Decision",
    "ExportFormat",
    "Intent",
    "IntentLog",
    "IntentState",
    "Journal",
    "JournalState",
    "NotFound",
    "Outcome",
    "RuleTable",
    "Steps",
    "StoreError",
    "Taint",
    "TaintLike",
    "UndoEntry",
    "UndoLog",
    "open_database",
    "recover",
]
