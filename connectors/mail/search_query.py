"""One mail search, as the server and the cache both read it.

A search holds words, sender words, a first day and an unread flag, every one of which must
match. A word matches when the sender, the recipients (To, Cc), the subject or the body holds
it, and a sender word when the From header does: substrings, without regard to case, as IMAP
SEARCH (RFC 3501) FROM, TO, CC, SUBJECT and BODY compare them. The day is compared with the
server's INTERNALDATE, date only. Other headers (Received, Message-ID, DKIM) are not searched,
so words found there on the server would not be found in the cache, nor asked for.

The user's words reach the server only as imapclient search criteria, never spliced into a
command line: IMAP specials are dropped, and so they are for the cache, so both read the same
words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

# IMAP specials that could end a string or open a list or literal: dropped from search text.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f(){}%*\[\]\"\\]+")
_WORD_FIELDS = ("FROM", "TO", "CC", "SUBJECT", "BODY")


def safe_words(text: str | None) -> list[str]:
    """The words of `text` with IMAP specials dropped."""
    return _UNSAFE.sub(" ", text or "").split()


@dataclass(frozen=True)
class MailQuery:
    """What to find; `impossible` when only IMAP syntax was asked for, which no message holds."""

    words: tuple[str, ...] = ()
    sender: tuple[str, ...] = ()
    since: date | None = None
    unread: bool = False
    impossible: bool = False

    @classmethod
    def of(
        cls,
        words: str | None = None,
        sender: str | None = None,
        since: date | None = None,
        unread: bool = False,
    ) -> MailQuery:
        found = {"words": tuple(safe_words(words)), "sender": tuple(safe_words(sender))}
        impossible = any(
            text and text.strip() and not found[key]
            for key, text in (("words", words), ("sender", sender))
        )
        return cls(found["words"], found["sender"], since, unread, bool(impossible))

    @property
    def needs_body(self) -> bool:
        """Whether a message's body can decide a match (else its headers and date do)."""
        return bool(self.words)

    def criteria(self) -> list[object]:
        """The IMAP SEARCH criteria; ALL when nothing narrows it."""
        criteria: list[object] = []
        for word in self.words:
            # OR takes two keys: OR FROM w OR TO w OR CC w OR SUBJECT w BODY w.
            for field in _WORD_FIELDS[:-1]:
                criteria += ["OR", field, word]
            criteria += [_WORD_FIELDS[-1], word]
        for word in self.sender:
            criteria += ["FROM", word]
        if self.since is not None:
            criteria += ["SINCE", self.since]
        if self.unread:
            criteria.append("UNSEEN")
        return criteria or ["ALL"]


def uid_set(uids: Iterable[int], *, open_from: int | None = None) -> str:
    """An IMAP UID set of `uids` in ranges, plus `open_from:*` when given."""
    ranges: list[str] = []
    ordered = sorted(set(uids))
    start = 0
    for index, uid in enumerate(ordered):
        if index + 1 == len(ordered) or ordered[index + 1] != uid + 1:
            first = ordered[start]
            ranges.append(str(uid) if first == uid else f"{first}:{uid}")
            start = index + 1
    if open_from is not None:
        ranges.append(f"{open_from}:*")
    return ",".join(ranges)
