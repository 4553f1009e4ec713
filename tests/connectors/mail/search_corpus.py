"""Messages for comparing the cache's search with Dovecot's, and queries to compare them with.

Same seed, same messages and queries. The messages mix what changes how text is compared:
names and subjects in many scripts, RFC 2047 encoded (Q and B) or raw UTF-8; bodies in 8bit,
quoted-printable (soft breaks inside words) or base64, UTF-8 or ISO-8859-1; HTML-only mail
with tags and entities; both alternatives of multipart/alternative; a text attachment (read by
BODY), a binary one (not), an attached message; group recipients; INTERNALDATEs an hour
either side of midnight in other zones, so their day differs by zone.
"""

from __future__ import annotations

import base64
import quopri
import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from email.charset import QP, Charset
from email.header import Header

from hearth.connectors.mail.search_query import MailQuery

FIRST_DAY = date(2026, 3, 1)
DAYS = 20
PEOPLE = (
    ("Jürgen Müller", "juergen.mueller@beispiel.example"),
    ("Zoë Zimmer", "zoe@zimmer.example"),
    ("François Lefèvre", "f.lefevre@exemple.example"),
    ("Søren Ødegård", "soren@nord.example"),
    ("Ιωάννης Παπαδόπουλος", "ioannis@ellada.example"),
    ("山田 太郎", "taro@yamada.example"),
    ("Ayşe Yılmaz", "ayse@istanbul.example"),
    ("Carol Smith", "carol@shop.example"),
    ("", "noreply@billing.example"),
    ("Dr. Ángel O'Neil, Jr.", "angel@clinic.example"),
)
WORDS = (
    "invoice", "Garden", "MEETING", "quarterly", "tickets", "concert", "bicycle", "budget",
    "Grüße", "Straße", "Käsekuchen", "café", "naïve", "smörgåsbord", "façade", "Łódź",
    "crème", "brûlée", "Ελλάδα", "σοφία", "東京", "Привет", "İstanbul", "ıstanbul", "ﬁnance",
    "½", "Ｔｏｋｙｏ", "São", "Ærø", "Dvořák",
)  # fmt: skip
ZONES = (0, 1, 2, -5, 9, 13, -11)
# Only in markup, a preamble, an epilogue or a binary part: what BODY reads decides them.
ELSEWHERE = ("eacute", "color:red", "<br>", "inv</b>oice", "zebra", "epilogue", "octet")


@dataclass(frozen=True)
class Corpus:
    messages: list[tuple[bytes, datetime]]  # raw message, INTERNALDATE
    words: list[str]  # what the messages' text is made of, to draw queries from


def corpus(count: int = 120, seed: int = 33) -> Corpus:
    rng = random.Random(seed)
    messages = [_message(n, rng) for n in range(count)]
    people = (part for name, address in PEOPLE for part in (*name.split(), address))
    words = [*WORDS, *ELSEWHERE, *people]
    return Corpus(messages, words)


def queries(words: list[str], count: int = 200, seed: int = 34) -> list[MailQuery]:
    """Words, sender words and days, alone and together, in other cases and cut short."""
    rng = random.Random(seed)
    found = []
    for n in range(count):
        kind = n % 5
        word = _variant(rng, rng.choice(words)) if kind in (0, 1, 3) else None
        extra = _variant(rng, rng.choice(words)) if kind == 1 else None
        sender = _variant(rng, rng.choice(PEOPLE)[rng.randrange(2)] or "noreply")
        since = FIRST_DAY + timedelta(days=rng.randrange(-1, DAYS + 2))
        found.append(
            MailQuery.of(
                words=" ".join(w for w in (word, extra) if w),
                sender=sender if kind in (2, 3) else None,
                since=since if kind in (3, 4) else None,
            )
        )
    return found


def _variant(rng: random.Random, word: str) -> str:
    """The word, or a piece of it, in another case (and now and then its accents dropped)."""
    word = rng.choice(word.split() or [word])
    if rng.random() < 0.4 and len(word) > 2:
        start = rng.randrange(len(word) - 1)
        word = word[start : rng.randrange(start + 1, len(word) + 1)]
    change = rng.choice((str, str.lower, str.upper, str.title, str.swapcase))
    word = change(word)
    if rng.random() < 0.1:
        word = word.translate(str.maketrans("üéöåçèíóáøæ", "ueoaceioaoa"))
    return word


def _message(n: int, rng: random.Random) -> tuple[bytes, datetime]:
    name, address = rng.choice(PEOPLE)
    others = rng.sample(PEOPLE, 2)
    to = ", ".join(_address(rng, *person) for person in others[:1])
    if n % 17 == 0:
        to = f"team: {to}, <x{n}@list.example>;"
    headers = [
        f"From: {_address(rng, name, address)}",
        f"To: {to}",
        f"Subject: {_header_text(rng, _phrase(rng, 3))}",
        f"Message-ID: <corpus.{n}@example.com>",
        "MIME-Version: 1.0",
    ]
    if n % 5 == 0:
        headers.append(f"Cc: {_address(rng, *others[1])}")
    body = _body(n, rng)
    day = FIRST_DAY + timedelta(days=rng.randrange(DAYS))
    minutes = rng.choice((rng.randrange(24 * 60), 30, 23 * 60 + 30))  # often near midnight
    zone = timezone(timedelta(hours=rng.choice(ZONES)))
    when = datetime.combine(day, datetime.min.time(), zone) + timedelta(minutes=minutes)
    return ("\r\n".join(headers) + "\r\n").encode() + body, when


def _address(rng: random.Random, name: str, address: str) -> str:
    """The address as one mail program or another writes it."""
    if not name:
        return address
    style = rng.randrange(3)
    if not name.isascii() and style:
        return f"{_encoded(rng, name)} <{address}>"  # RFC 2047
    if name.isascii() and style == 2:
        return f"{address} ({name})"  # the name as a comment
    quoted = f'"{name}"' if any(c in name for c in ",.'") else name
    return f"{quoted} <{address}>"  # raw UTF-8 when it is not ASCII


def _header_text(rng: random.Random, text: str) -> str:
    return text if text.isascii() or rng.random() < 0.3 else _encoded(rng, text)


def _encoded(rng: random.Random, text: str) -> str:
    charset = Charset("utf-8")
    if rng.random() < 0.5:
        charset.header_encoding = QP
    return Header(text, charset).encode()


def _phrase(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def _body(n: int, rng: random.Random) -> bytes:
    text = "\r\n".join(_phrase(rng, rng.randrange(4, 14)) for _ in range(rng.randrange(1, 6)))
    html = f'<html><body><p style="color:red">{text.replace(chr(13), "<br>")}</p>'
    html += " caf&eacute; <b>inv</b>oice</body></html>"
    kind = n % 6
    if kind == 0:
        return _part(html, "html", rng)  # HTML only
    if kind == 1:
        return _multipart("alternative", [_part(text, "plain", rng), _part(html, "html", rng)])
    if kind == 2:
        attached = _part(_phrase(rng, 5), "plain", rng, filename="notes.txt")
        binary = b"Content-Type: application/octet-stream\r\n\r\nbicycle Garden\r\n"
        inner = f"Subject: {_phrase(rng, 2)}\r\n".encode() + _part(_phrase(rng, 4), "plain", rng)
        message = b"Content-Type: message/rfc822\r\n\r\n" + inner
        return _multipart("mixed", [_part(text, "plain", rng), attached, binary, message])
    return _part(text, "plain", rng)


def _part(text: str, subtype: str, rng: random.Random, filename: str | None = None) -> bytes:
    """A text part's headers (ending in the blank line) and body, in a random encoding."""
    charset = "iso-8859-1" if _latin1(text) and rng.random() < 0.5 else "utf-8"
    data = text.encode(charset)
    encoding = rng.choice(("8bit", "quoted-printable", "base64"))
    if encoding == "quoted-printable":
        data = quopri.encodestring(data)
    elif encoding == "base64":
        data = base64.encodebytes(data).replace(b"\n", b"\r\n")
    named = f"; name={filename}\r\nContent-Disposition: attachment; filename={filename}"
    head = f"Content-Type: text/{subtype}; charset={charset}{named if filename else ''}\r\n"
    head += f"Content-Transfer-Encoding: {encoding}\r\n\r\n"
    return head.encode() + data + b"\r\n"


def _multipart(subtype: str, parts: list[bytes]) -> bytes:
    boundary = f"=_corpus_{subtype}"
    body = b"".join(f"--{boundary}\r\n".encode() + part for part in parts)
    head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"\r\n\r\npreamble zebra\r\n'
    return head.encode() + body + f"--{boundary}--\r\nepilogue\r\n".encode()


def _latin1(text: str) -> bool:
    try:
        text.encode("iso-8859-1")
    except UnicodeEncodeError:
        return False
    return True
