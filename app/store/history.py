"""A stored conversation read back for a front end: messages, each call's recorded fate, undo."""

from __future__ import annotations

from dataclasses import dataclass

from hearth.messages import Message
from hearth.store import AuditEntry, AuditLog, ConversationStore, UndoLog
from hearth.tools import ToolRegistry


@dataclass(frozen=True)
class StoredConversation:
    """Everything needed to show a past conversation, read in one go (it is all disk I/O)."""

    conversation_id: int
    title: str
    messages: list[Message]
    audit: list[AuditEntry]
    undoable: frozenset[str]
    effects: dict[str, str]


def read_conversation(
    conversations: ConversationStore,
    audit: AuditLog,
    undo_log: UndoLog,
    tools: ToolRegistry,
    conversation_id: int,
) -> StoredConversation:
    return StoredConversation(
        conversation_id=conversation_id,
        title=conversations.get(conversation_id).title,
        messages=conversations.messages(conversation_id),
        audit=audit.entries(conversation_id=conversation_id),
        undoable=frozenset(entry.call_id for entry in undo_log.pending()),
        effects={tool.name: tool.effect for tool in tools},
    )
