"""Conversations and their messages, stored so that an acknowledged message survives a crash."""

from __future__ import annotations

import builtins
import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from hearth.messages import Message, Role, ToolCall
from hearth.store.db import Database, NotFound, from_stored_time, utc_now

UNTITLED = "New conversation"
TITLE_CHARS = 60

# AUTOINCREMENT so a deleted conversation's id is never reused: audit rows outlive
# conversations and must never point at a stranger's later chat.
MIGRATIONS = [
    [
        "CREATE TABLE conversations ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " title TEXT NOT NULL,"
        " created_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL)",
        "CREATE INDEX conversations_by_update ON conversations (updated_at)",
        "CREATE TABLE messages ("
        " conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,"
        " seq INTEGER NOT NULL,"
        " role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),"
        " content TEXT NOT NULL,"
        " reasoning TEXT NOT NULL,"
        " tool_calls TEXT,"
        " tool_call_id TEXT,"
        " name TEXT,"
        " created_at TEXT NOT NULL,"
        " PRIMARY KEY (conversation_id, seq))",
    ],
    [
        "ALTER TABLE conversations ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0",
        # Conversations the terminal started before it titled them, named as `append` would.
        "UPDATE conversations SET title = coalesce((SELECT nullif(substr(trim(replace(replace("
        "  replace(m.content, char(13), ' '), char(10), ' '), char(9), ' ')), 1, 60), '')"
        "  FROM messages AS m WHERE m.conversation_id = conversations.id AND m.role = 'user'"
        "  ORDER BY m.seq LIMIT 1), title)"
        f" WHERE title = '{UNTITLED}'",
    ],
]


def conversation_title(text: str) -> str:
    """A conversation's title from its first message: the start of it, on one line."""
    return " ".join(text.split())[:TITLE_CHARS] or UNTITLED


@dataclass(frozen=True, slots=True)
class Conversation:
    """A stored conversation; `tokens` is how much of the model's context it filled when its
    last turn ended."""

    id: int
    title: str
    created_at: datetime
    updated_at: datetime
    tokens: int = 0


class ConversationStore:
    """Create, list, search and append to conversations."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("conversations", MIGRATIONS)

    def create(self, title: str = UNTITLED) -> int:
        """A new, empty conversation's id; left `UNTITLED`, its first message names it."""
        now = utc_now()
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO conversations (title, created_at, updated_at) VALUES (?, ?, ?)",
                (title, now, now),
            )
        return int(cast(int, cursor.lastrowid))

    def get(self, conversation_id: int) -> Conversation:
        rows = self.db.query("SELECT * FROM conversations WHERE id = ?", (conversation_id,))
        if not rows:
            raise _missing(self.db, conversation_id)
        return _conversation(rows[0])

    def list(self) -> list[Conversation]:
        """Every conversation, most recently updated first."""
        rows = self.db.query("SELECT * FROM conversations ORDER BY updated_at DESC, id DESC")
        return [_conversation(row) for row in rows]

    def rename(self, conversation_id: int, title: str) -> None:
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?",
                (title, utc_now(), conversation_id),
            )
            if cursor.rowcount == 0:
                raise _missing(self.db, conversation_id)

    def set_tokens(self, conversation_id: int, tokens: int) -> None:
        """Record how much of the model's context the conversation fills now."""
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET tokens = ? WHERE id = ?", (tokens, conversation_id)
            )
            if cursor.rowcount == 0:
                raise _missing(self.db, conversation_id)

    def delete(self, conversation_id: int) -> None:
        """Delete a conversation and its messages; its audit entries are kept."""
        with self.db.transaction() as conn:
            cursor = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            if cursor.rowcount == 0:
                raise _missing(self.db, conversation_id)

    # From here on the class body's `list` is the method above, so the type is builtins.list.
    def search(self, text: str) -> builtins.list[Conversation]:
        """Conversations whose title or any message contains `text` (ASCII case-insensitive)."""
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.db.query(
            "SELECT * FROM conversations AS c WHERE c.title LIKE ?1 ESCAPE '\\'"
            " OR EXISTS (SELECT 1 FROM messages AS m WHERE m.conversation_id = c.id"
            "   AND (m.content LIKE ?1 ESCAPE '\\' OR m.reasoning LIKE ?1 ESCAPE '\\'))"
            " ORDER BY c.updated_at DESC, c.id DESC",
            (pattern,),
        )
        return [_conversation(row) for row in rows]

    def append(self, conversation_id: int, message: Message) -> int:
        """Store `message` as the conversation's next one; it is on disk when this returns.

        An `UNTITLED` conversation's first user message gives it its title, whichever front
        end started it.
        """
        now = utc_now()
        with self.db.transaction() as conn:
            touched = conn.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
            )
            if touched.rowcount == 0:
                raise _missing(self.db, conversation_id)
            if message.role == "user":
                conn.execute(
                    "UPDATE conversations SET title = ?1 WHERE id = ?2 AND title = ?3 AND"
                    " NOT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?2"
                    "  AND role = 'user')",
                    (conversation_title(message.content), conversation_id, UNTITLED),
                )
            seq = conn.execute(
                "SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (conversation_id, seq, *_message_columns(message), now),
            )
        return int(seq)

    def messages(self, conversation_id: int) -> builtins.list[Message]:
        """The conversation's messages in order, exactly as they were appended."""
        self.get(conversation_id)
        rows = self.db.query(
            "SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
        )
        return [_message(row) for row in rows]


def _missing(db: Database, conversation_id: int) -> NotFound:
    return NotFound(db.path, f"there is no conversation {conversation_id}")


def _conversation(row: sqlite3.Row) -> Conversation:
    return Conversation(
        id=row["id"],
        title=row["title"],
        created_at=from_stored_time(row["created_at"]),
        updated_at=from_stored_time(row["updated_at"]),
        tokens=row["tokens"],
    )


def _message_columns(message: Message) -> tuple[Any, ...]:
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    return (
        message.role,
        message.content,
        message.reasoning,
        json.dumps(calls, ensure_ascii=False) if calls else None,
        message.tool_call_id,
        message.name,
    )


def _message(row: sqlite3.Row) -> Message:
    calls = json.loads(row["tool_calls"]) if row["tool_calls"] else []
    return Message(
        role=cast(Role, row["role"]),
        content=row["content"],
        reasoning=row["reasoning"],
        tool_calls=tuple(ToolCall(c["name"], c["arguments"], id=c["id"]) for c in calls),
        tool_call_id=row["tool_call_id"],
        name=row["name"],
    )
