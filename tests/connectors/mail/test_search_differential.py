"""The cache finds exactly what Dovecot's SEARCH finds: random queries (words, senders, days,
alone and together) asked of both, on generated mail in many scripts and encodings and on the
real and hostile messages of tests/connectors/mail/corpus."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.search_query import MailQuery
from hearth.connectors.mail.searching import search_mail
from tests.connectors.mail.search_corpus import corpus, queries

pytestmark = pytest.mark.server
CORPUS = Path(__file__).parent / "corpus"


def differences(account: MailAccount, asked: list[MailQuery]) -> tuple[list[object], int]:
    """Each query whose answers differ (server only, cache only), and how many found any."""
    found_any, differing = 0, []
    with account.mailbox() as mailbox:
        for query in asked:
            server = set(mailbox.search("INBOX", query))
            found = search_mail(account, query, ["INBOX"], limit=10**6, fresh_s=10**9)
            cache = {envelope.uid for envelope in found.envelopes}
            found_any += bool(server)
            if cache != server:
                differing.append((query, sorted(server - cache), sorted(cache - server)))
    return differing, found_any


def test_the_cache_answers_as_the_server_does(dovecot: DovecotServer, account: MailAccount) -> None:
    made = corpus()
    with dovecot.session() as client:
        for raw, when in made.messages:
            client.append("INBOX", raw, msg_time=when)
    account.sync(["INBOX"])
    assert account.cache.pending("INBOX") == ([], {})
    coverage = account.cache.coverage("INBOX", MailQuery.of("x"))
    assert coverage is not None and coverage.unknown == ()  # every body is in the cache
    differing, found_any = differences(account, queries(made.words))
    assert differing == []
    assert found_any > 150  # the comparison is seldom of empty answers


def test_real_and_hostile_mail_is_answered_as_the_server_does(
    dovecot: DovecotServer, account: MailAccount
) -> None:
    """Broken MIME each server reads its own way: those bodies are left to the server."""
    words: set[str] = set()
    with dovecot.session() as client:
        for path in sorted(CORPUS.glob("*.*")):
            if path.name != "README.txt":
                raw = path.read_bytes()
                client.append("INBOX", raw)
                words.update(re.findall(r"\w\w+", raw.decode("utf-8", "replace")))
    account.sync(["INBOX"])
    rng = random.Random(7)
    drawn = sorted(words)
    asked = []
    for n in range(300):
        word = rng.choice(drawn)
        start = rng.randrange(len(word) - 1) if n % 3 == 0 else 0
        word = word[start:]
        asked.append(MailQuery.of(word) if n % 4 else MailQuery.of(sender=word))
    differing, found_any = differences(account, asked)
    assert differing == []
    assert found_any > 100
