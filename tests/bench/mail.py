"""Mail benchmark: prints JSON. Run: .venv/bin/python tests/bench/mail.py [--messages N]

On a generated two-year INBOX of 20,000 messages (tests/bench/mail_data.py) held by a real
Dovecot on loopback over TLS, measured side by side in one run, interleaved, as median and
min in ms over --repeats runs, with the ratio server / cache:
- listing the newest 50: from the cache (`MailCache.envelopes`), from the server (EXAMINE,
  UID SEARCH ALL, ENVELOPE fetch of the highest 50 UIDs via `Mailbox`), and the `mail.list`
  tool, which syncs the folder first and then reads the cache;
- searching for a word in 1 % of the subjects: cache FTS (`MailCache.search`) against IMAP
  SEARCH TEXT plus the envelopes of the newest 50 hits; and the `mail.search` tool (both);
- searching for one sender's address: the cache's sender filter (as mail.list uses) and its
  FTS, against IMAP SEARCH FROM plus the envelopes of the newest 50 hits.
The server paths each open a connection and log in, as Hearth does for every IMAP
conversation; `connect_login` says how much of that is the TLS handshake and LOGIN.
Also: the initial sync of INBOX into the empty cache (once), a sync with nothing new, and a
sync after another client appended 10 messages.

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
from hearth.connectors.mail.settings import MailSettings
from tests.bench.mail_data import FOLDER, GeneratedMailbox, fill, generate, new_messages
from tests.connectors.mail.kit import run

NEWEST = 50
NEW_MESSAGES = 10
NOTES = [
    "server paths include connecting and logging in (TLS over loopback), as every Hearth IMAP "
    "conversation opens its own connection; connect_login_ms is that part alone",
    "Dovecot here has no full-text index plugin: SEARCH TEXT reads every message file",
    "the cache's FTS covers subjects, people and the bodies read so far; the searched word is "
    "only in subjects, so both sides should find the same messages (see *_hits)",
    "mail.list and every sync fetch the flags of all messages to see changes made elsewhere",
    "initial_sync_s includes Dovecot filling its own header cache on first fetch",
]


def use_secure_keyring(folder: Path) -> None:
    """An encrypted file keyring, as the tests' `secure_keyring` fixture sets one up."""
    import keyring
    from keyrings.cryptfile.cryptfile import CryptFileKeyring  # type: ignore[import-untyped]

    backend = CryptFileKeyring()
    backend.time_cost, backend.memory_cost = 1, 1024  # a cheaper KDF; same encryption
    backend.file_path = str(folder / "keyring.cfg")
    backend.keyring_key = "bench master key"
    keyring.set_keyring(backend)


def trust(ca: trustme.CA, scratch: Path) -> None:
    """Make new default SSL contexts trust the test CA, as the `trust_mail_ca` fixture does."""
    bundle = scratch / "mail-ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    os.environ["SSL_CERT_FILE"] = str(bundle)
    os.environ.pop("SSL_CERT_DIR", None)


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


def server_search(
    account: MailAccount, *, words: str | None = None, sender: str | None = None
) -> tuple[int, list[int]]:
    """All hits' UIDs by IMAP SEARCH, then the envelopes of the newest NEWEST of them."""
    with account.mailbox() as mailbox:
        uids = mailbox.search(FOLDER, words=words, sender=sender)
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


def measure_reads(account: MailAccount, mailbox: GeneratedMailbox, repeats: int) -> dict[str, Any]:
    connector = MailConnector(account)
    cache, word, sender = account.cache, mailbox.rare_word, mailbox.searched_sender
    names = ("listing", "word_search", "sender_search")
    runs: dict[str, dict[str, list[float]]] = {name: {} for name in names}
    connects: list[float] = []
    seen: dict[str, Any] = {}

    def note(name: str, way: str, action: Callable[[], object]) -> Any:
        elapsed, result = timed(action)
        runs[name].setdefault(way, []).append(elapsed)
        return result

    for _ in range(repeats):  # interleaved, so drift in machine load hits every way alike
        listed = note("listing", "cache", lambda: cache.envelopes(FOLDER, limit=NEWEST))
        seen["listing_cache_uids"] = {e.uid for e in listed}
        uids = note("listing", "server", lambda: server_listing(account, connects))
        seen["listing_server_uids"] = set(uids)
        note("listing", "tool_mail_list", lambda: run(connector, "mail.list", limit=NEWEST))

        note("word_search", "cache_fts", lambda: cache.search(word, folder=FOLDER))
        hits = note("word_search", "server", lambda: server_search(account, words=word))
        seen["word_server_hits"] = hits[0]
        note("word_search", "tool_mail_search", lambda: run(connector, "mail.search", words=word))

        note(
            "sender_search",
            "cache_filter",
            lambda: cache.envelopes(FOLDER, sender=sender, limit=NEWEST),
        )
        note("sender_search", "cache_fts", lambda: cache.search(sender, folder=FOLDER))
        hits = note("sender_search", "server", lambda: server_search(account, sender=sender))
        seen["sender_server_hits"] = hits[0]

    all_word = len(cache.search(word, folder=FOLDER, limit=10**6))
    all_sender = len(cache.envelopes(FOLDER, sender=sender, limit=10**6))
    all_sender_fts = len(cache.search(sender, folder=FOLDER, limit=10**6))
    same_newest = len(seen["listing_cache_uids"] & seen["listing_server_uids"])
    return {
        "connect_login": summary(connects),
        "listing_newest_50": {
            **compare(runs["listing"], "cache"),
            "same_messages_cache_and_server": same_newest,
        },
        "word_search": {
            "word": word,
            **compare(runs["word_search"], "cache_fts"),
            "hits": {"cache": all_word, "server": seen["word_server_hits"]},
        },
        "sender_search": {
            "sender": sender,
            **compare(runs["sender_search"], "cache_filter"),
            "hits": {
                "cache_filter": all_sender,
                "cache_fts": all_sender_fts,
                "server": seen["sender_server_hits"],
            },
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
        initial_ms, reports = timed(lambda: account.sync([FOLDER]))
        cached = len(account.cache.uids(FOLDER))
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
            "cached_after": cached,
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
