"""A mail search, answered by the cache where a sync covered the folder, by the server for the
rest, and saying which answered and as of when.

A folder synced to the end under its UIDVALIDITY is covered up to the UIDNEXT that sync saw:
the cache answers for those UIDs, but for the messages whose text it lacks (a body not indexed
yet), about which the server is asked by UID. When that sync is older than `fresh_s` (the
background sync is not keeping up: offline, or never started), or older than Hearth's own last
move, delete, draft or send, the server is also asked about UIDs from that UIDNEXT on, the mail
that came since. A folder never synced to the end is
searched on the server whole. The server is asked once, on one connection, for every folder
that needs it; offline, the cache answers for what it holds and the note says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.cache_index import Coverage
from hearth.connectors.mail.errors import FolderNotFound, Offline
from hearth.connectors.mail.mailbox import Mailbox
from hearth.connectors.mail.objects import Envelope
from hearth.connectors.mail.search_query import MailQuery, uid_set

Source = Literal["cache", "server", "cache and server"]
_MAX_UID_SET = 8_000  # characters; servers take command lines of 8 KB at least


@dataclass(frozen=True)
class Found:
    """The newest matches, who answered, and as of when: the oldest sync the cache's part rests
    on, or now when only the server answered."""

    envelopes: list[Envelope]
    source: Source
    as_of: float | None  # None when the cache answered without any folder synced to the end
    note: str | None = None


@dataclass(frozen=True)
class _Part:
    """One folder's share of a search: what the cache covers and what the server is asked."""

    folder: str
    coverage: Coverage | None
    server_uids: str | None  # a UID set; "" for the whole folder; None when not asked

    @staticmethod
    def of(folder: str, coverage: Coverage | None, *, stale: bool) -> _Part:
        if coverage is None:
            return _Part(folder, None, "")
        if not coverage.unknown and not stale:
            return _Part(folder, coverage, None)
        asked = uid_set(coverage.unknown, open_from=coverage.uidnext if stale else None)
        # A set too scattered for one command line: all UIDs, of which only these are kept.
        return _Part(folder, coverage, asked if len(asked) <= _MAX_UID_SET else "1:*")


def search_mail(
    account: MailAccount,
    query: MailQuery,
    folders: Sequence[str],
    *,
    limit: int,
    fresh_s: float,
) -> Found:
    """The newest `limit` messages of `folders` matching `query`."""
    cache, now = account.cache, account.clock()
    if query.impossible:
        return Found([], "cache", None)  # only IMAP syntax was asked for: nothing holds that
    parts = []
    for folder in folders:
        coverage = cache.coverage(folder, query)
        synced_at = coverage.synced_at if coverage else now
        stale = now - synced_at > fresh_s or synced_at <= account.changed_at
        parts.append(_Part.of(folder, coverage, stale=stale))
    found: dict[tuple[str, int], Envelope] = {}
    from_cache = [part for part in parts if part.coverage is not None]
    for part in from_cache:
        below = part.coverage.uidnext if part.coverage else None
        for envelope in cache.search(query, part.folder, below=below, limit=limit):
            found[(envelope.folder, envelope.uid)] = envelope
    asked = [part for part in parts if part.server_uids is not None]
    note = None
    if asked:
        try:
            with account.mailbox() as mailbox:
                for part in asked:
                    try:
                        if _ask(mailbox, cache, part, query, limit, found):
                            from_cache.remove(part)  # renumbered: its cached UIDs meant nothing
                    except FolderNotFound:
                        if len(folders) == 1:
                            raise  # the folder asked for; among all, one gone since the sync

        except Offline as offline:
            note = f"Offline, so only the cache was searched; it may lack some messages. {offline}"
            for part in asked:
                for envelope in cache.search(query, part.folder, limit=limit):
                    found[(envelope.folder, envelope.uid)] = envelope
            asked = []
    newest = sorted(found.values(), key=_newest_first)[:limit]
    synced = [part.coverage.synced_at for part in from_cache if part.coverage]
    if asked:
        source: Source = "cache and server" if synced else "server"
    else:
        source = "cache"
    as_of = now if source == "server" else min(synced, default=None)
    return Found(newest, source, as_of, note)


def _ask(
    mailbox: Mailbox,
    cache: MailCache,
    part: _Part,
    query: MailQuery,
    limit: int,
    found: dict[tuple[str, int], Envelope],
) -> bool:
    """Add the server's matches in `part` to `found`; True when the folder was renumbered
    (a new UIDVALIDITY) since the cache's sync, so the whole folder was asked instead."""
    folder, coverage = part.folder, part.coverage
    state = mailbox.examine(folder)
    cached = cache.folder_state(folder)
    renumbered = cached is not None and cached[0] != state.uidvalidity
    if cached is None or renumbered:
        cache.reset_folder(folder, state.uidvalidity, special_use=mailbox.special_use_of(folder))
        for key in [key for key in found if key[0] == folder]:
            del found[key]
    if coverage is None or renumbered:
        uids = mailbox.search(folder, query)
    else:  # the cache answered for the rest
        asked = set(coverage.unknown)
        # "n:*" also names the highest UID when it is below n: keep what was really asked.
        uids = [
            uid
            for uid in mailbox.search(folder, query, uids=part.server_uids)
            if uid >= coverage.uidnext or uid in asked
        ]
    newest = uids[-limit:]
    missing = [uid for uid in newest if cache.envelope(folder, uid) is None]
    if missing:
        cache.put_listed(mailbox.listings(folder, missing))
    for uid in newest:
        if (envelope := cache.envelope(folder, uid)) is not None:
            found[(folder, uid)] = envelope
    return renumbered and coverage is not None


def _newest_first(envelope: Envelope) -> tuple[float, int]:
    return (-envelope.date.timestamp() if envelope.date else 0.0, -envelope.uid)
