"""A stored conversation read back as transcript rows, with each tool call's recorded fate."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hearth.assistant import Assistant
from hearth.consent import unfence
from hearth.engine.types import Message
from hearth.store import AuditEntry
from hearth.ui.chat.entries import (
    AnswerEntry,
    CardState,
    ReasoningEntry,
    ToolCardEntry,
    TranscriptEntry,
    UndoState,
    UserEntry,
)
from hearth.ui.chat.presenter import short_result


@dataclass(frozen=True)
class StoredConversation:
    """Everything needed to show a past conversation, read in one background op."""

    conversation_id: int
    title: str
    messages: list[Message]
    audit: list[AuditEntry]
    undoable: frozenset[str]
    effects: dict[str, str]


def read_conversation(assistant: Assistant, conversation_id: int) -> StoredConversation:
    """Read a conversation with its audit trail; runs on the worker pool (it is all disk I/O)."""
    return StoredConversation(
        conversation_id=conversation_id,
        title=assistant.conversations.get(conversation_id).title,
        messages=assistant.conversations.messages(conversation_id),
        audit=assistant.audit.entries(conversation_id=conversation_id),
        undoable=frozenset(entry.call_id for entry in assistant.undoable()),
        effects={tool.name: tool.effect for tool in assistant.tools},
    )


def history_entries(stored: StoredConversation) -> list[TranscriptEntry]:
    """The transcript rows of a stored conversation, thinking folded, cards settled."""
    entries: list[TranscriptEntry] = []
    cards: dict[str, ToolCardEntry] = {}
    for message in stored.messages:
        if message.role == "user":
            entries.append(UserEntry(text=message.content))
        elif message.role == "assistant":
            for entry in _assistant_entries(message, stored.effects):
                entries.append(entry)
                if isinstance(entry, ToolCardEntry):
                    cards[entry.call_id] = entry
        elif message.role == "tool" and message.tool_call_id in cards:
            _settle(cards[message.tool_call_id], message.content)
    for card in cards.values():
        _apply_audit(card, [row for row in stored.audit if row.call_id == card.call_id])
        if card.call_id in stored.undoable:
            card.undo = UndoState.AVAILABLE
    return entries


def _assistant_entries(message: Message, effects: dict[str, str]) -> Iterable[TranscriptEntry]:
    if message.reasoning.strip():
        yield ReasoningEntry(text=message.reasoning.strip(), live=False, collapsed=True)
    if message.content.strip():
        yield AnswerEntry(text=message.content.strip(), live=False)
    for call in message.tool_calls:
        yield ToolCardEntry(
            call_id=call.id,
            tool=call.name,
            effect=effects.get(call.name, ""),
            arguments=dict(call.arguments),
            state=CardState.DONE,
        )


def _settle(card: ToolCardEntry, observation: str) -> None:
    card.result = short_result(unfence(observation))
    if observation.startswith("Denied:"):
        card.outcome = "denied"
    elif observation.startswith("Error:"):
        card.outcome = "invalid"
    else:
        card.outcome = "executed"


def _apply_audit(card: ToolCardEntry, rows: Sequence[AuditEntry]) -> None:
    """The audit log knows who decided and how it ended; the messages only what the model read."""
    if not rows:
        return
    card.decided_by = rows[0].decided_by
    last = rows[-1]
    if last.outcome != "proposed":
        card.outcome = last.outcome
    if last.outcome in ("executed", "failed") and last.result_summary:
        card.result = short_result(last.result_summary)
    card.duration_ms = float(last.duration_ms or 0)
