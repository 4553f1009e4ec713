"""Bringing the cache up to date with the server, folder by folder.

A folder's UIDs mean something only under its UIDVALIDITY: when the server reports another,
everything cached of the folder is dropped and fetched anew. Otherwise the headers of UIDs
not cached yet (those above the highest cached, normally) are fetched, flags are refreshed
for all, and what the server no longer has is removed. A server with CONDSTORE says when
nothing changed at all, and then the sync costs one EXAMINE.

A folder synced to the end is recorded with the UIDNEXT its EXAMINE gave and the time: a
search answers from the cache for every UID below it (`searching`). Bodies are indexed after,
apart (`indexing.index_bodies`), as they take far longer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.indexing import index_headers
from hearth.connectors.mail.mailbox import Mailbox


@dataclass(frozen=True)
class SyncReport:
    """What one folder's sync changed in the cache."""

    folder: str
    added: int
    removed: int
    flags_changed: int
    reset: bool


def sync_folder(
    mailbox: Mailbox,
    cache: MailCache,
    folder: str,
    *,
    batch: int = 500,
    clock: Callable[[], float] = time.time,
) -> SyncReport:
    state = mailbox.examine(folder)
    special_use = mailbox.special_use_of(folder)
    cached = cache.folder_state(folder)
    reset = cached is not None and cached[0] != state.uidvalidity
    if cached is None or reset:
        cache.reset_folder(folder, state.uidvalidity, special_use=special_use)
    else:
        cache.set_special_use(folder, special_use)
    if state.highestmodseq and cache.same_state(folder, state) and not cache.pending(folder)[0]:
        # CONDSTORE: the same UIDNEXT, count and change counter mean nothing moved at all.
        cache.remember_state(folder, state, synced_at=clock())
        return SyncReport(folder, 0, 0, 0, False)

    server_flags = mailbox.flags(folder) if state.exists else {}
    known = cache.flags(folder)
    gone = known.keys() - server_flags.keys()
    cache.remove(folder, gone)

    changed = {
        uid: flags
        for uid, flags in server_flags.items()
        if uid in known and set(known[uid]) != set(flags)
    }
    cache.update_flags(folder, changed)

    # The UIDs above the highest cached, and any a broken-off sync did not store.
    new = sorted(server_flags.keys() - known.keys())
    added = 0
    for start in range(0, len(new), batch):
        listed = mailbox.listings(folder, new[start : start + batch], batch=batch)
        cache.put_listed(listed)
        added += len(listed)
    index_headers(mailbox, cache, folder, batch=batch)  # of those cached before they were
    cache.remember_state(folder, state, synced_at=clock())
    return SyncReport(folder, added, len(gone), len(changed), reset)


def sync_all(
    mailbox: Mailbox, cache: MailCache, *, clock: Callable[[], float] = time.time
) -> list[SyncReport]:
    """Sync every selectable folder, and forget cached folders the server no longer has."""
    folders = [folder for folder in mailbox.folders() if folder.selectable]
    names = {folder.name for folder in folders}
    for stale in set(cache.folders()) - names:
        cache.forget_folder(stale)
    return [sync_folder(mailbox, cache, folder.name, clock=clock) for folder in folders]
