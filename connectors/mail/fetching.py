"""One message's headers and body, from the cache or fetched (BODY.PEEK: never marked read).

Headers are parsed by Hearth's strict parser from the message itself, so the address shown
and used is the one mail really goes to; the result replaces the listing's cached envelope.
A message fetched whole is indexed for search too, so it is found offline.
"""

from __future__ import annotations

import dataclasses

from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.errors import Offline
from hearth.connectors.mail.objects import Envelope, ParsedBody
from hearth.connectors.mail.parsing import MAX_RAW_BYTES, header_concerns, parse_body, parse_headers
from hearth.connectors.mail.search_text import body_text


def fetch(account: MailAccount, folder: str, uid: int) -> tuple[Envelope, ParsedBody]:
    """The message's envelope and body made safe to read; cached after the first fetch."""
    cache = account.cache
    cached, body = cache.envelope(folder, uid), cache.body(folder, uid)
    if cached is not None and body is not None:
        return cached, body
    try:
        with account.mailbox() as mailbox:
            raw = mailbox.raw(folder, uid, MAX_RAW_BYTES)
            if cached is None or not cache.searchable(folder, uid):
                listed = mailbox.listings(folder, [uid])
                cache.put_listed(listed)
                cached = listed[0][0] if listed else cached
    except Offline as offline:
        raise Offline(f"{offline}; this message's text is not in the cache yet") from None
    head = _head(raw)
    envelope = parse_headers(
        head,
        folder=folder,
        uid=uid,
        flags=cached.flags if cached else (),
        size=cached.size if cached else len(raw),
    )
    body = parse_body(raw)
    body = dataclasses.replace(body, concerns=(*header_concerns(head), *body.concerns))
    cache.put_envelopes([envelope])
    cache.put_body(folder, uid, body)
    if len(raw) < MAX_RAW_BYTES:  # the whole message, so its body's text is all there
        cache.put_body_texts(folder, {uid: body_text(raw)})
    return envelope, body


def _head(raw: bytes) -> bytes:
    ends = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    return raw[: min(ends)] if ends else raw
