"""A generated two-year mailbox for the mail benchmark, as raw RFC 5322 messages.

About 300 senders, a few of them writing most of the mail (as newsletters and colleagues do),
some with non-ASCII names (RFC 2047 encoded); subjects from word lists, a fifth of them
replies; bodies of 1-3 KB of plain text, one in five also as HTML (multipart/alternative);
dates spread over two years in several time zones, oldest first. Exactly 1 % of the messages
carry RARE_WORD in their subject, and no other header or body holds it; COMMON_WORD is in
nearly every body. Same seed, same bytes. `fill` writes them straight into a test Dovecot's
maildir, each file's time (Dovecot's INTERNALDATE) its message's date. Also the set-up the
benchmark shares with the tests' fixtures: a secure keyring and trust in the test CA.
"""

from __future__ import annotations

import os
import random
import ssl
import time
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from email.utils import format_datetime, formataddr
from pathlib import Path

import imapclient
import trustme

from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.evaluation.servers.dovecot_config import MAIL_GID, MAIL_UID

FOLDER = "INBOX"
RARE_WORD = "invoice"  # no other generated word contains it
COMMON_WORD = "schedule"  # one of BODY_WORDS: a body of 1-3 KB almost always holds it
LAST_DATE = datetime(2025, 6, 30, 18, 0, tzinfo=UTC)
SPAN = timedelta(days=730)
OWNER = ("Ann", "ann@example.org")
FIRST_NAMES = (
    "Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hugo", "Ida", "Jonas", "Karin",
    "Lukas", "Mara", "Nils", "Olga", "Paul", "Rosa", "Simon", "Tina", "Uwe", "Vera", "Walter",
    "Yusuf", "Zoe", "Jürgen", "Søren", "Zoë", "Ángel", "Chloé", "François",
)  # fmt: skip
LAST_NAMES = (
    "Keller", "Brandt", "Okafor", "Nakamura", "Silva", "Novak", "Lindqvist", "Moreau",
    "Fischer", "Rossi", "Kowalski", "Jensen", "Haddad", "Müller", "Ødegård",
)  # fmt: skip
DOMAINS = (
    "example.com", "example.net", "mail.example.org", "shop.example", "school.example",
    "work.example.com", "club.example.net",
)  # fmt: skip
SUBJECT_STARTS = (
    "Question about", "Update on", "Notes from", "Reminder:", "Plans for", "Photos from",
    "Your order:", "Agenda for", "Thoughts on", "Draft of", "Tickets for", "Minutes of",
)  # fmt: skip
SUBJECT_TOPICS = (
    "the garden", "Friday", "the school trip", "our project", "the budget", "the workshop",
    "next week", "the flat", "the conference", "the renovation", "dinner", "the contract",
    "the holiday", "the newsletter", "the meeting", "your account", "the delivery", "March",
)  # fmt: skip
BODY_WORDS = (
    "the", "and", "we", "should", "meet", "about", "plan", "next", "week", "please", "send",
    "thanks", "team", "schedule", "garden", "report", "review", "friday", "morning", "after",
    "lunch", "could", "you", "check", "numbers", "attached", "notes", "station", "train",
    "tickets", "weather", "children", "school", "delivery", "package", "order", "kitchen",
    "window", "colour", "paint", "budget", "quarter", "results", "slides", "presentation",
    "holiday", "booking", "hotel", "room", "evening", "concert", "library", "bicycle",
    "repair", "insurance", "doctor", "appointment", "neighbour", "party", "birthday", "cake",
)  # fmt: skip


@dataclass(frozen=True)
class GeneratedMessage:
    """One message: its bytes, its date and its maildir flag letters (e.g. "S", "FS")."""

    raw: bytes
    when: datetime
    flags: str


@dataclass(frozen=True)
class GeneratedMailbox:
    """The messages, oldest first, and what the benchmark searches for."""

    messages: list[GeneratedMessage]
    senders: int
    rare_word: str
    rare_word_messages: int
    searched_sender: str  # an address from the middle of the frequency ranking
    searched_sender_messages: int
    html_messages: int
    replies: int
    total_bytes: int


def senders(rng: random.Random, count: int = 300) -> list[tuple[str, str]]:
    """`count` distinct (name, address) pairs; no address is the end of another."""
    pairs = [(first, last) for first in FIRST_NAMES for last in LAST_NAMES]
    rng.shuffle(pairs)
    found: list[tuple[str, str]] = []
    for n, (first, last) in enumerate(pairs[:count]):
        local = f"{_ascii(first)}.{_ascii(last)}{n}".lower()  # the number keeps them unique
        found.append((f"{first} {last}", f"{local}@{DOMAINS[n % len(DOMAINS)]}"))
    return found


def generate(count: int = 20_000, seed: int = 20250630) -> GeneratedMailbox:
    rng = random.Random(seed)
    people = senders(rng)
    # Zipf-like: the first few senders write much of the mail, the last ones rarely.
    weights = [1 / (rank + 1) ** 0.8 for rank in range(len(people))]
    chosen = rng.choices(range(len(people)), weights, k=count)
    rare = set(rng.sample(range(count), max(1, count // 100)))
    start = LAST_DATE - SPAN
    moments = sorted(
        start + timedelta(seconds=rng.uniform(0, SPAN.total_seconds())) for _ in chosen
    )
    messages, html, replies, size = [], 0, 0, 0
    for n, (who, when) in enumerate(zip(chosen, moments, strict=True)):
        newest = n >= count - 300  # recent mail is less often read yet
        is_reply = rng.random() < 0.2 and n > 0
        as_html = rng.random() < 0.2
        raw = _message(n, people[who], when, rng, n in rare, is_reply, as_html)
        seen = rng.random() < (0.6 if newest else 0.97)
        flags = ("F" if rng.random() < 0.04 else "") + ("S" if seen else "")
        messages.append(GeneratedMessage(raw, when, flags))
        html, replies, size = html + as_html, replies + is_reply, size + len(raw)
    middle = sorted(set(chosen), key=lambda who: -chosen.count(who))[len(set(chosen)) // 4]
    return GeneratedMailbox(
        messages=messages,
        senders=len(set(chosen)),
        rare_word=RARE_WORD,
        rare_word_messages=len(rare),
        searched_sender=people[middle][1],
        searched_sender_messages=chosen.count(middle),
        html_messages=html,
        replies=replies,
        total_bytes=size,
    )


def new_messages(first_number: int, count: int, after: datetime, seed: int = 7) -> list[bytes]:
    """`count` messages dated after `after`, numbered from `first_number` (distinct ids)."""
    rng = random.Random(seed + first_number)
    people = senders(random.Random(20250630))
    return [
        _message(
            first_number + n,
            rng.choice(people),
            after + timedelta(minutes=n + 1),
            rng,
            rare=False,
            is_reply=False,
            as_html=False,
        )
        for n in range(count)
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


def since_day(mailbox: GeneratedMailbox) -> date:
    """A day about 2 % of the mail was received on or after (in UTC, the test server's zone)."""
    return mailbox.messages[len(mailbox.messages) * 98 // 100].when.astimezone(UTC).date()


def patient_client(server: DovecotServer) -> imapclient.IMAPClient:
    """A logged-in client with a long timeout, for Dovecot's first look at a full maildir."""
    context = ssl.create_default_context()
    client = imapclient.IMAPClient(
        server.host, port=server.tls_port, ssl=True, ssl_context=context, timeout=600
    )
    client.login(server.user, server.password)
    return client


def fill(server: DovecotServer, mailbox: GeneratedMailbox) -> dict[str, float]:
    """Write the messages into INBOX's maildir, then let Dovecot index them (timed apart)."""
    client = patient_client(server)
    client.select_folder(FOLDER, readonly=True)  # Dovecot makes the maildir on first use
    client.logout()
    maildir = server._maildir(FOLDER)
    cur = maildir / "cur"
    started = time.perf_counter()
    for number, message in enumerate(mailbox.messages):
        # Dovecot numbers new files in file-name order: the time first keeps UIDs in date order.
        name = f"{int(message.when.timestamp())}.M{number:06d}P1.bench,S={len(message.raw)}"
        path = cur / f"{name}:2,{message.flags}"
        path.write_bytes(message.raw)
        os.utime(path, (message.when.timestamp(), message.when.timestamp()))
        os.chown(path, MAIL_UID, MAIL_GID)
    written = time.perf_counter()
    client = patient_client(server)
    exists = int(client.select_folder(FOLDER, readonly=True)[b"EXISTS"])
    client.logout()
    indexed = time.perf_counter()
    if exists != len(mailbox.messages):
        raise RuntimeError(f"Dovecot sees {exists} messages, {len(mailbox.messages)} written")
    return {
        "write_maildir_s": round(written - started, 2),
        "dovecot_first_select_s": round(indexed - written, 2),
    }


def _message(
    number: int,
    sender: tuple[str, str],
    when: datetime,
    rng: random.Random,
    rare: bool,
    is_reply: bool,
    as_html: bool,
) -> bytes:
    subject = f"{rng.choice(SUBJECT_STARTS)} {rng.choice(SUBJECT_TOPICS)}"
    if rare:
        subject += f" ({RARE_WORD} {rng.randint(1000, 9999)})"
    zone = timezone(timedelta(hours=rng.choice((0, 1, 2, -5, 9))))
    headers = [
        f"From: {formataddr(sender, charset='utf-8')}",
        f"To: {formataddr(OWNER)}",
        f"Subject: {'Re: ' if is_reply else ''}{subject}",
        f"Date: {format_datetime(when.astimezone(zone))}",
        f"Message-ID: <bench.{number}@{sender[1].split('@')[1]}>",
        "MIME-Version: 1.0",
    ]
    if is_reply:
        earlier = f"<bench.{rng.randrange(number)}@example.com>"
        headers += [f"In-Reply-To: {earlier}", f"References: {earlier}"]
    paragraphs = _paragraphs(rng, rng.randint(1000, 3000))
    text = "\r\n\r\n".join(paragraphs) + f"\r\n\r\n-- \r\n{sender[0]}\r\n"
    if not as_html:
        headers += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
        return ("\r\n".join(headers) + "\r\n\r\n" + text).encode()
    boundary = f"=_bench_{number}"
    markup = "".join(f"<p>{p}</p>\r\n" for p in paragraphs)
    body = (
        f"--{boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Transfer-Encoding: 8bit\r\n\r\n{text}\r\n"
        f"--{boundary}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Transfer-Encoding: 8bit\r\n\r\n<html><body>\r\n{markup}</body></html>\r\n"
        f"--{boundary}--\r\n"
    )
    headers.append(f'Content-Type: multipart/alternative; boundary="{boundary}"')
    return ("\r\n".join(headers) + "\r\n\r\n" + body).encode()


def _paragraphs(rng: random.Random, size: int) -> list[str]:
    paragraphs, length = [], 0
    while length < size:
        words = rng.choices(BODY_WORDS, k=rng.randint(25, 70))
        line = " ".join(words).capitalize() + "."
        # Wrapped at about 72 columns, as mail programs send plain text.
        wrapped, current = [], ""
        for word in line.split():
            if len(current) + len(word) > 72:
                wrapped.append(current)
                current = ""
            current = f"{current} {word}" if current else word
        paragraphs.append("\r\n".join([*wrapped, current]))
        length += len(line)
    return paragraphs


def _ascii(name: str) -> str:
    """The name as an address's local part may hold it: ü as ue, ø as oe, accents dropped."""
    name = name.replace("ü", "ue").replace("ø", "oe").replace("Ø", "Oe")
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
