"""Mail benchmark: prints JSON. Run: .venv/bin/python tests/bench/mail.py [--messages N]

On a generated two-year INBOX of 20,000 messages (tests/bench/mail_data.py) held by a real
Dovecot on loopback over TLS, measured side by side in one run, interleaved, as median and
min in ms over --repeats runs, with the ratio server / cache:
- listing the newest 50: from the cache (`MailCache.envelopes`), from the server (EXAMINE,
  UID SEARCH ALL, ENVELOPE fetch of the highest 50 UIDs via `Mailbox`), and the `mail.list`
  tool, which syncs the folder first and then reads the cache;
- searching for a word in 1 % of the subjects, for a word in nearly every body, for one
  sender's address, and for mail since a day: the cache's index alone (`MailCache.search`),
  the server (IMAP SEARCH with the tool's criteria plus the envelopes of the newest 50 hits:
  what `mail.search` did before it asked the cache), and the `mail.search` tool, which the
  cache now answers (`answered_by`); `tool_same_as_server` compares the newest 50 found;
- the sender search also through the cache's listing filter (as mail.list uses).
The server paths each open a connection and log in, as Hearth does for every IMAP
conversation; `connect_login` says how much of that is the TLS handshake and LOGIN.
Also: the initial sync of INBOX into the empty cache (once; headers, then the bodies indexed
for search, and the cache file's size after), a sync with nothing new, and a sync after
another client appended 10 messages.

Loading is not measured: the messages are written straight into Dovecot's maildir, and the
first SELECT, where Dovecot indexes them, is timed on its own (`fill`).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path; the repository root goes there instead,
# so that `tests.` imports work and nothing here can stand in for a standard module.
# ruff: noqa: E402
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parents[1]))

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import trustme

from hearth import SettingsStore
from hearth.connectors.evaluation.servers.dovecot import ADDRESS, DovecotServer
from hearth.connectors.mail.account import NAME, MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.settings import MailSettings
from tests.bench.mail_data import (
    COMMON_WORD,
    FOLDER,
    GeneratedMailbox,
    fill,
    generate,
    new_messages,
    since_day,
    trust,
    use_secure_keyring,
)
from tests.connectors.mail.kit import run

NEWEST = 50
NEW_MESSAGES = 10
NOTES = [
    "server paths include connecting and logging in (TLS over loopback), as every Hearth IMAP "
    "conversation opens its own connection; connect_login_ms is that part alone",
    "Dovecot here has no full-text index plugin: a SEARCH for words reads every message file",
    "mail.search looks for words in From, To, Cc, Subject and the body, substrings as Dovecot "
    "compares them; the cache holds that text for every synced message (trigram FTS5), so "
    "both sides find the same messages (see *hits and tool_same_as_server)",
    "mail.list and every sync fetch the flags of all messages to see changes made elsewhere",
    "initial_sync_s includes Dovecot filling its own header cache on first fetch",
]


def open_account(server: DovecotServer, scratch: Path) -> MailAccount:
    """Ann's account, the password kept for this session only (no keyring read per call)."""
    store = SettingsStore(scratch / "connectors")
    settings = MailSettings(
        address=ADDRESS,
        display_name="Ann",
        username=server.user,
        imap_host=server.host,
        imap_port=server.tls_port,
        imap_security="tls",
    )
    store.save(NAME, settings)
    account = MailAccount(store, scratch / "mail")
    account.use_password_for_session(server.password)
    return account


def timed(action: Callable[[], object]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return (time.perf_counter() - started) * 1000, result


def server_listing(account: MailAccount, connects: list[float]) -> list[int]:
    started = time.perf_counter()
    with account.mailbox() as mailbox:
        connects.append((time.perf_counter() - started) * 1000)
        mailbox.examine(FOLDER)
        uids = mailbox.all_uids(FOLDER)
        newest = mailbox.envelopes(FOLDER, uids[-NEWEST:])
    return [found.uid for found in newest]


def server_search(account: MailAccount, query: MailQuery) -> tuple[int, list[int]]:
    """All hits' UIDs by IMAP SEARCH, then the envelopes of the newest NEWEST of them."""
    with account.mailbox() as mailbox:
        uids = mailbox.search(FOLDER, query)
        found = mailbox.envelopes(FOLDER, uids[-NEWEST:])
    return len(uids), [envelope.uid for envelope in found]


def summary(values: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(values), 2), "min_ms": round(min(values), 2)}


def compare(runs: dict[str, list[float]], cache_key: str) -> dict[str, Any]:
    """Each way's median and min, and every other way's median over the cache's."""
    report: dict[str, Any] = {way: summary(values) for way, values in runs.items()}
    cache_median = statistics.median(runs[cache_key])
    for way, values in runs.items():
        if way != cache_key:
            ratio = statistics.median(values) / cache_median
            report[f"{way}_over_{cache_key}_median"] = round(ratio, 1)
    return report


def measure_search(
    account: MailAccount, repeats: int, query: MailQuery, arguments: dict[str, object]
) -> dict[str, Any]:
    """One search three ways, interleaved: the cache's index, the server, the tool."""
    connector = MailConnector(account)
    runs: dict[str, list[float]] = {"cache_fts": [], "server": [], "tool_mail_search": []}
    for _ in range(repeats):
        elapsed, cached = timed(lambda: account.cache.search(query, FOLDER, limit=NEWEST))
        runs["cache_fts"].append(elapsed)
        elapsed, (server_hits, server_newest) = timed(lambda: server_search(account, query))
        runs["server"].append(elapsed)
        elapsed, tool = timed(lambda: run(connector, "mail.search", limit=NEWEST, **arguments))
        runs["tool_mail_search"].append(elapsed)
    everything = account.cache.search(query, FOLDER, limit=10**6)
    tool_uids = {int(message.id.rpartition("/")[2]) for message in tool.messages}
    before, after = (statistics.median(runs[way]) for way in ("server", "tool_mail_search"))
    return {
        **compare(runs, "cache_fts"),
        "server_over_tool_mail_search_median": round(before / after, 1),
        "answered_by": tool.source,
        "hits": {"cache": len(everything), "server": server_hits},
        "tool_same_as_server": tool_uids == set(server_newest),
        "cache_same_as_server": {e.uid for e in cached} == set(server_newest),
    }


def measure_reads(account: MailAccount, mailbox: GeneratedMailbox, repeats: int) -> dict[str, Any]:
    connector = MailConnector(account)
    cache, sender = account.cache, mailbox.searched_sender
    runs: dict[str, list[float]] = {}
    connects: list[float] = []
    seen: dict[str, Any] = {}

    def note(way: str, action: Callable[[], object]) -> Any:
        elapsed, result = timed(action)
        runs.setdefault(way, []).append(elapsed)
        return result

    for _ in range(repeats):  # interleaved, so drift in machine load hits every way alike
        listed = note("cache", lambda: cache.envelopes(FOLDER, limit=NEWEST))
        seen["listing_cache_uids"] = {e.uid for e in listed}
        uids = note("server", lambda: server_listing(account, connects))
        seen["listing_server_uids"] = set(uids)
        note("tool_mail_list", lambda: run(connector, "mail.list", limit=NEWEST))
    same_newest = len(seen["listing_cache_uids"] & seen["listing_server_uids"])
    day = since_day(mailbox)
    sender_search = measure_search(
        account, repeats, MailQuery.of(sender=sender), {"words": "", "sender": sender}
    )
    filtered = [
        timed(lambda: cache.envelopes(FOLDER, sender=sender, limit=NEWEST))[0]
        for _ in range(repeats)
    ]
    return {
        "connect_login": summary(connects),
        "listing_newest_50": {
            **compare(runs, "cache"),
            "same_messages_cache_and_server": same_newest,
        },
        "word_search": {
            "word": mailbox.rare_word,
            **measure_search(
                account, repeats, MailQuery.of(mailbox.rare_word), {"words": mailbox.rare_word}
            ),
        },
        "common_word_search": {
            "word": COMMON_WORD,
            **measure_search(account, repeats, MailQuery.of(COMMON_WORD), {"words": COMMON_WORD}),
        },
        "sender_search": {
            "sender": sender,
            **sender_search,
            "cache_filter": summary(filtered),
        },
        "since_search": {
            "since": day.isoformat(),
            **measure_search(
                account, repeats, MailQuery.of(since=day), {"words": "", "since": day.isoformat()}
            ),
        },
    }


def measure_syncs(
    account: MailAccount, server: DovecotServer, repeats: int, total: int
) -> dict[str, Any]:
    """Syncs with nothing new, then after another client appended NEW_MESSAGES each time."""
    unchanged = [timed(lambda: account.sync([FOLDER]))[0] for _ in range(repeats)]
    after_new, added = [], []
    last = max(
        envelope.date for envelope in account.cache.envelopes(FOLDER, limit=1) if envelope.date
    )
    for repeat in range(repeats):
        raws = new_messages(total + repeat * NEW_MESSAGES, NEW_MESSAGES, last)
        with server.session() as phone:  # one session, as a phone that got a batch would
            for raw in raws:
                phone.append(FOLDER, raw)
        elapsed, reports = timed(lambda: account.sync([FOLDER]))
        after_new.append(elapsed)
        added.append(reports[0].added)
    return {
        "nothing_new": summary(unchanged),
        f"after_{NEW_MESSAGES}_new": {**summary(after_new), "added_each_time": sorted(set(added))},
    }


def measure(scratch: Path, options: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    generated, mailbox = timed(lambda: generate(options.messages))
    ca = trustme.CA()
    trust(ca, scratch)
    server = DovecotServer(scratch / "dovecot", ca).start()
    try:
        loading = fill(server, mailbox)
        account = open_account(server, scratch)
        initial_ms, reports = timed(lambda: account.sync([FOLDER], bodies=False))
        bodies_ms, _ = timed(lambda: account.sync([FOLDER]))
        cached = len(account.cache.uids(FOLDER))
        cache_mb = sum(p.stat().st_size for p in account.cache.path.parent.glob("cache.sqlite*"))
        reads = measure_reads(account, mailbox, options.repeats)
        syncs = measure_syncs(account, server, options.repeats, options.messages)
        account.stop()
        account.cache.close()
    finally:
        server.stop()
    return {
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "mailbox": {
            "messages": len(mailbox.messages),
            "megabytes": round(mailbox.total_bytes / 1e6, 1),
            "senders": mailbox.senders,
            "html_messages": mailbox.html_messages,
            "replies": mailbox.replies,
            "rare_word_messages": mailbox.rare_word_messages,
            "searched_sender_messages": mailbox.searched_sender_messages,
        },
        "repeats": options.repeats,
        "fill_not_measured": {"generate_s": round(generated / 1000, 2), **loading},
        "initial_sync": {
            "seconds": round(initial_ms / 1000, 2),
            "messages_per_s": round(reports[0].added / (initial_ms / 1000)),
            "bodies_indexed_s": round(bodies_ms / 1000, 2),
            "cached_after": cached,
            "cache_file_mb": round(cache_mb / 1e6, 1),
        },
        "incremental_sync": syncs,
        **reads,
        "total_run_s": round(time.perf_counter() - started, 1),
        "notes": NOTES,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-mail-") as scratch:
        os.environ["HEARTH_HOME"] = str(Path(scratch) / "hearth-home")
        use_secure_keyring(Path(scratch))
        report = measure(Path(scratch), options)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
