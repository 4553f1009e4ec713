"""Indexing cached messages for search: their headers and day first, then their bodies.

Headers come with the sync's ENVELOPE fetch; messages cached without them (by an older Hearth,
or by reading one message) get them at the next sync. Bodies are fetched whole (BODY.PEEK, so
nothing becomes read), newest first, a round at a time, each round on a connection of its own
so that a tool waiting for the server gets its turn. A message too large to fetch whole is left
to the server: a search asks it about that one.
"""

from __future__ import annotations

from collections.abc import Iterator

from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.parsing import MAX_RAW_BYTES
from hearth.connectors.mail.search_text import body_text

ROUND_BYTES = 16_000_000
ROUND_MESSAGES = 2_000
_FETCH_BYTES = 4_000_000  # one FETCH command's worth, so memory stays bounded


def index_headers(mailbox: Mailbox, cache: MailCache, folder: str, *, batch: int = 500) -> int:
    """Index the headers of the folder's cached messages that lack them; how many there were."""
    missing, _ = cache.pending(folder)
    for start in range(0, len(missing), batch):
        cache.put_listed(mailbox.listings(folder, missing[start : start + batch], batch=batch))
    return len(missing)


def index_bodies(mailbox: Mailbox, cache: MailCache, folder: str) -> int:
    """Index one round of the folder's unindexed bodies, newest first; how many were done
    (0 when none was waiting)."""
    _, sizes = cache.pending(folder)
    too_large = {uid: None for uid, size in sizes.items() if size > MAX_RAW_BYTES}
    if too_large:
        cache.put_body_texts(folder, too_large)
    wanted = sorted((uid for uid in sizes if uid not in too_large), reverse=True)
    done = 0
    for uids in _fetches(wanted[:ROUND_MESSAGES], sizes):
        raws = mailbox.whole(folder, uids)
        # One gone from the server meanwhile is left to it; the next sync removes it.
        texts = {uid: body_text(raws[uid]) if uid in raws else None for uid in uids}
        cache.put_body_texts(folder, texts)
        done += len(uids)
    return done + len(too_large)


def _fetches(uids: list[int], sizes: dict[int, int]) -> Iterator[list[int]]:
    """`uids` in groups of about _FETCH_BYTES, up to ROUND_BYTES in all."""
    group: list[int] = []
    group_bytes = total = 0
    for uid in uids:
        if total >= ROUND_BYTES:
            break
        if group and group_bytes + sizes[uid] > _FETCH_BYTES:
            yield group
            group, group_bytes = [], 0
        group.append(uid)
        group_bytes += sizes[uid]
        total += sizes[uid]
    if group:
        yield group
