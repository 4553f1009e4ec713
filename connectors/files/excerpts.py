"""Where a search's words appear in a file's text, marked like FTS5's snippets.

The index stems words ("budgets" finds "budget"), so an excerpt looks for the query's words and,
failing them, for their stems. Stems come from SQLite's own porter tokenizer, the one the index
uses, run over the query's words alone in a table in memory: FTS5's snippet() would tokenize the
whole of a long file for every hit shown.
"""

from __future__ import annotations

import re
import threading

from hearth import open_sqlite

TOKENIZER = "porter unicode61 remove_diacritics 2"
_EXCERPT_CHARS = 60
# A shorter shared beginning would mark unrelated words ("day" is stored "dai"; "data" is not it).
_SHORTEST_STEM = 3


class Stemmer:
    """The stems the index stores for some words; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn = open_sqlite(":memory:", durable=False)  # in memory: nothing to keep
        self._conn.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize = '{TOKENIZER}')")
        self._conn.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, instance)")

    def stems(self, words: list[str]) -> list[str]:
        """Each word's stem, in order; a word the tokenizer drops stays as it is."""
        with self._lock:
            self._conn.executemany(
                "INSERT INTO words (rowid, word) VALUES (?, ?)", list(enumerate(words))
            )
            found = dict(self._conn.execute("SELECT doc, term FROM stems WHERE offset = 0"))
            self._conn.execute("DELETE FROM words")
        return [found.get(n, word) for n, word in enumerate(words)]


def excerpt(text: str, words: list[str], stems: list[str] | None = None) -> str:
    """The first place one of `words` starts a word in `text`, or else one of `stems`."""
    found = _first(text, words)
    if found is None and stems:
        # A stem's letters may differ from the word's at the end ("happy" is stored "happi").
        found = _first(text, [_shared(word, stem) for word, stem in zip(words, stems, strict=True)])
    if found is None:
        return ""
    start, end = found.span()
    before = text[max(0, start - _EXCERPT_CHARS) : start]
    after = text[end : end + _EXCERPT_CHARS]
    lead = "… " if start > _EXCERPT_CHARS else ""
    tail = " …" if end + _EXCERPT_CHARS < len(text) else ""
    return " ".join(f"{lead}{before}[{found.group(0)}]{after}{tail}".split())


def _shared(word: str, stem: str) -> str:
    prefix = ""
    for letter, other in zip(word, stem, strict=False):
        if letter != other:
            break
        prefix += letter
    # Porter writes a final "y" as "i": "ponies" and "pony" are both stored "poni".
    prefix = prefix.removesuffix("i") if stem.endswith("i") else prefix
    return prefix if len(prefix) >= _SHORTEST_STEM else word


def _first(text: str, words: list[str]) -> re.Match[str] | None:
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\w*", re.IGNORECASE)
    return pattern.search(text)
