"""The mail cache's schema, and how envelopes and bodies become rows and back, exactly.

Addresses, flags, attachments and concerns are kept as JSON; dates as ISO 8601 with their
offset, plus a UTC timestamp to sort and filter by.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from typing import Any

from hearth.connectors.mail.objects import Address, Attachment, Concern, Envelope, ParsedBody

SCHEMA_VERSION = 2
TABLES = ("folders", "messages", "bodies", "search_index")
SCHEMA = (
    "CREATE TABLE folders (name TEXT PRIMARY KEY, uidvalidity INTEGER NOT NULL,"
    " special_use TEXT, highest_uid INTEGER NOT NULL DEFAULT 0, seen_state TEXT)",
    "CREATE TABLE messages (id INTEGER PRIMARY KEY, folder TEXT NOT NULL, uid INTEGER NOT NULL,"
    " message_id TEXT NOT NULL, subject TEXT NOT NULL, sender_name TEXT, sender_email TEXT,"
    " reply_to TEXT NOT NULL, to_addresses TEXT NOT NULL, cc_addresses TEXT NOT NULL,"
    " date TEXT, sort_time REAL NOT NULL, flags TEXT NOT NULL, size INTEGER NOT NULL,"
    " in_reply_to TEXT NOT NULL, refs TEXT NOT NULL, UNIQUE (folder, uid))",
    "CREATE INDEX messages_by_time ON messages (folder, sort_time)",
    "CREATE TABLE bodies (folder TEXT NOT NULL, uid INTEGER NOT NULL, text TEXT NOT NULL,"
    " attachments TEXT NOT NULL, concerns TEXT NOT NULL, hidden_chars INTEGER NOT NULL,"
    " PRIMARY KEY (folder, uid))",
    # rowid = messages.id, so a message's index entry is found without scanning.
    "CREATE VIRTUAL TABLE search_index USING fts5(subject, sender, recipients, body,"
    " tokenize = 'unicode61 remove_diacritics 2')",
)
ENVELOPE_COLUMNS = (
    "folder, uid, message_id, subject, sender_name, sender_email, reply_to, to_addresses,"
    " cc_addresses, date, flags, size, in_reply_to, refs"
)


def fts_query(words: str) -> str:
    """The user's words as FTS5 prefix strings ANDed together; never FTS syntax of theirs."""
    terms = [word for word in words.split() if any(char.isalnum() for char in word)]
    return " ".join('"' + word.replace('"', '""') + '"*' for word in terms)


def timestamp(moment: date | datetime) -> float:
    """Seconds since the epoch; a naive time is taken as UTC, a day as its UTC midnight."""
    if not isinstance(moment, datetime):
        moment = datetime.combine(moment, time())
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def addresses_json(addresses: Sequence[Address]) -> str:
    return json.dumps([[address.name, address.email] for address in addresses])


def addresses_from_json(text: str) -> tuple[Address, ...]:
    return tuple(Address(name, email) for name, email in json.loads(text))


def envelope_from_row(row: Sequence[Any]) -> Envelope:
    (folder, uid, message_id, subject, sender_name, sender_email, reply_to, to, cc, when, flags,
     size, in_reply_to, refs) = row  # fmt: skip
    return Envelope(
        folder=folder,
        uid=int(uid),
        message_id=message_id,
        subject=subject,
        sender=Address(sender_name, sender_email) if sender_email is not None else None,
        reply_to=addresses_from_json(reply_to),
        to=addresses_from_json(to),
        cc=addresses_from_json(cc),
        date=datetime.fromisoformat(when) if when else None,
        flags=tuple(json.loads(flags)),
        size=int(size),
        in_reply_to=in_reply_to,
        references=refs,
    )


def body_row(body: ParsedBody) -> tuple[str, str, str, int]:
    """text, attachments, concerns, hidden_chars of the bodies table."""
    attachments = [[a.filename, a.content_type, a.size] for a in body.attachments]
    concerns = [[c.kind, c.text] for c in body.concerns]
    return body.text, json.dumps(attachments), json.dumps(concerns), body.hidden_chars


def parsed_body(row: Sequence[Any]) -> ParsedBody:
    text, attachments, concerns, hidden_chars = row
    return ParsedBody(
        text=text,
        attachments=tuple(Attachment(*item) for item in json.loads(attachments)),
        concerns=tuple(Concern(*item) for item in json.loads(concerns)),
        hidden_chars=int(hidden_chars),
    )
