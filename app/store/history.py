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
    tokens: int  # of the model's context, when its last turn ended
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
    stored = conversations.get(conversation_id)
    return StoredConversation(
        conversation_id=conversation_id,
        title=stored.title,
        tokens=stored.tokens,
        messages=conversations.messages(conversation_id),
        audit=audit.entries(conversation_id=conversation_id),
        undoable=frozenset(entry.call_id for entry in undo_log.pending()),
        effects={tool.name: tool.effect for tool in tools},
    )
