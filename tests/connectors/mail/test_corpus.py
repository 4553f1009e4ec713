"""Every malformed or hostile message goes through header and body parsing without raising.

The corpus is CPython's email test messages (see corpus/README.txt) plus hand-made hostile
files; the generated cases below are too large to keep as files.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth.connectors.mail.objects import ParsedBody
from hearth.connectors.mail.parsing import (
    MAX_RAW_BYTES,
    MAX_TEXT_CHARS,
    header_concerns,
    parse_body,
    parse_headers,
)

CORPUS = Path(__file__).parent / "corpus"
CORPUS_FILES = sorted(path for path in CORPUS.iterdir() if path.name != "README.txt")
MEMORY_MARGIN = 20_000_000


def _nested_multiparts(depth: int) -> bytes:
    opening = b"".join(
        b"Content-Type: multipart/mixed; boundary=n%d\n\n--n%d\n" % (n, n) for n in range(depth)
    )
    return opening + b"Content-Type: text/plain\n\ninnermost\n"


def _nested_messages(depth: int) -> bytes:
    return b"Content-Type: message/rfc822\n\n" * depth + b"\ninnermost\n"


GENERATED: dict[str, Callable[[], bytes]] = {
    "10k nested multiparts": lambda: _nested_multiparts(10_000),
    "10k nested messages": lambda: _nested_messages(10_000),
    "100k empty parts": lambda: (
        b"Content-Type: multipart/mixed; boundary=e\n\n" + b"--e\n\n" * 100_000 + b"--e--\n"
    ),
    "1 MB subject line": lambda: b"Subject: " + b"s" * 1_000_000 + b"\n\nbody\n",
    "1 MB From line": lambda: b"From: " + b"a" * 1_000_000 + b"@b.org\n\nbody\n",
    "1 MB of quotes in From": lambda: b'From: "' * 200_000 + b"\n\nbody\n",
    "1 MB folded Content-Type": lambda: (
        b"Content-Type: multipart/mixed; boundary=x" + b"\n ;" * 500_000 + b"\n\n--x\n\nhi\n"
    ),
    "semicolons in Content-Type": lambda: (
        b'Content-Type: text/plain; name="' + b';"' * 500_000 + b"\n\nhi\n"
    ),
    "NULs everywhere": lambda: b"Sub\x00ject: a\x00b\nContent-Type: text/pl\x00ain\n\n\x00" * 1000,
    "invalid base64": lambda: (
        b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n" + b"!@#$=a" * 100_000
    ),
    "overlong encoded words": lambda: (
        b"Subject: "
        + b"=?utf-8?b?"
        + b"QUFB" * 250_000
        + b"?=\nFrom: =?utf-8?q?"
        + b"=41" * 100_000
        + b"?= <a@b.org>\n\nx\n"
    ),
    "unknown charsets": lambda: (
        b"Subject: =?no-such?q?x?=\nContent-Type: text/plain; charset*=bogus''x%FF\n\n\xff\xfe"
    ),
    "UTF-7 html": lambda: (
        b"Content-Type: text/html; charset=utf-7\n\n+ADw-script+AD4-alert(1)+ADw-/script+AD4-"
    ),
    "binary garbage": lambda: bytes(range(256)) * 8_000,
    "boundary never closed": lambda: (
        b"Content-Type: multipart/mixed; boundary=o\n\n"
        + b"--o\nContent-Type: text/plain\n\nx\n" * 50
    ),
    "missing boundary": lambda: b"Content-Type: multipart/mixed\n\n--\n\nhello\n",
    "only CRs": lambda: b"Content-Type: text/plain\r\r" + b"\r" * 1_000_000,
}


def _run(raw: bytes) -> ParsedBody:
    parse_headers(raw, folder="INBOX", uid=1, size=len(raw))
    header_concerns(raw)
    body = parse_body(raw)
    assert len(body.text) <= MAX_TEXT_CHARS
    return body


@pytest.mark.timeout(20)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=[path.name for path in CORPUS_FILES])
def test_corpus_file_parses(path: Path) -> None:
    _run(path.read_bytes())


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_hostile_case_parses_quickly(name: str) -> None:
    raw = GENERATED[name]()
    started = time.monotonic()
    _run(raw)
    assert time.monotonic() - started < 10


@pytest.mark.timeout(20)
def test_50_mb_message_memory_is_bounded() -> None:
    raw = b"Content-Type: text/plain\n\n" + b"y" * 50_000_000
    tracemalloc.start()
    try:
        body = _run(raw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "truncated" in {concern.kind for concern in body.concerns}
    assert peak < 5 * MAX_RAW_BYTES + MEMORY_MARGIN


def test_the_corpus_files_raise_the_concerns_they_were_chosen_for() -> None:
    """Not only no exception: a malformed or hidden-text message says so to the user."""
    seen = {concern.kind for path in CORPUS_FILES for concern in _run(path.read_bytes()).concerns}
    assert {"malformed", "hidden_text"} <= seen
