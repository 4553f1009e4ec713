"""A stored conversation (read through `Assistant.read_conversation`) as transcript rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hearth import AuditEntry, Message, Reason, StoredConversation, shown_reply, unfence
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

# Refused before any rule was read: the call itself was not valid.
_NOT_VALID = (Reason.UNKNOWN_TOOL, Reason.NOT_OFFERED, Reason.MALFORMED, Reason.INVALID_ARGUMENTS)


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
            cards[message.tool_call_id].result = short_result(unfence(message.content))
    for card in cards.values():
        _apply_audit(card, [row for row in stored.audit if row.call_id == card.call_id])
        if card.call_id in stored.undoable:
            card.undo = UndoState.AVAILABLE
    return entries


def _assistant_entries(message: Message, effects: dict[str, str]) -> Iterable[TranscriptEntry]:
    # The history keeps what the model wrote; shown again, a reply is cleaned as it was live.
    reasoning, content = (
        shown_reply(message.reasoning).strip(),
        shown_reply(message.content).strip(),
    )
    if reasoning:
        yield ReasoningEntry(text=reasoning, live=False, collapsed=True)
    if content:
        yield AnswerEntry(text=content, live=False)
    for call in message.tool_calls:
        yield ToolCardEntry(
            call_id=call.id,
            tool=call.name,
            effect=effects.get(call.name, ""),
            arguments=dict(call.arguments),
            state=CardState.DONE,
        )


def _apply_audit(card: ToolCardEntry, rows: Sequence[AuditEntry]) -> None:
    """The audit log knows who decided and how it ended; the messages only what the model read."""
    if not rows:
        return
    decided = rows[0]
    card.ruling = decided.ruling
    made = decided.provenance
    card.filled = dict(made.filled)
    if made.edited_from is not None:  # what ran was the user's edit, not the model's call
        card.arguments, card.proposed = dict(decided.arguments), dict(made.edited_from)
    last = rows[-1]
    if card.ruling.reason in _NOT_VALID:
        card.outcome = "invalid"
    elif last.outcome != "proposed":
        card.outcome = last.outcome
    if last.outcome in ("executed", "failed", "partial", "unknown") and last.result_summary:
        card.result = short_result(last.result_summary)
    if last.outcome != "proposed":
        # The line the card showed when the call ended, as the core stored it: nothing here
        # reads the result again (an older row gives its result's first lines).
        card.summary = last.card_summary
    card.duration_ms = float(last.duration_ms or 0)
