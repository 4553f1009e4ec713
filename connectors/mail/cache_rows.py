"""How envelopes and bodies become rows of the mail cache and back, exactly.

Addresses, flags, attachments and concerns are kept as JSON; dates as ISO 8601 with their
offset, plus a UTC timestamp to sort and filter by.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from typing import Any

from hearth.connectors.mail.objects import Address, Attachment, Concern, Envelope, ParsedBody

ENVELOPE_COLUMNS = (
    "folder, uid, message_id, subject, sender_name, sender_email, reply_to, to_addresses,"
    " cc_addresses, date, flags, size, in_reply_to, refs"
)

# One envelope in, or its values refreshed; its index state and day are left as they were.
UPSERT_ENVELOPE = (
    "INSERT INTO messages (folder, uid, message_id, subject, sender_name, sender_email,"
    " reply_to, to_addresses, cc_addresses, date, sort_time, flags, size, in_reply_to, refs)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (folder, uid) DO UPDATE SET message_id = excluded.message_id,"
    " subject = excluded.subject, sender_name = excluded.sender_name,"
    " sender_email = excluded.sender_email, reply_to = excluded.reply_to,"
    " to_addresses = excluded.to_addresses, cc_addresses = excluded.cc_addresses,"
    " date = excluded.date, sort_time = excluded.sort_time, flags = excluded.flags,"
    " size = excluded.size, in_reply_to = excluded.in_reply_to, refs = excluded.refs"
    " RETURNING id"
)


def envelope_row(envelope: Envelope) -> tuple[object, ...]:
    """The values of UPSERT_ENVELOPE."""
    sender = envelope.sender
    return (
        envelope.folder,
        envelope.uid,
        envelope.message_id,
        envelope.subject,
        sender.name if sender else None,
        sender.email if sender else None,
        addresses_json(envelope.reply_to),
        addresses_json(envelope.to),
        addresses_json(envelope.cc),
        envelope.date.isoformat() if envelope.date else None,
        timestamp(envelope.date) if envelope.date else 0.0,
        json.dumps(list(envelope.flags)),
        envelope.size,
        envelope.in_reply_to,
        envelope.references,
    )


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
