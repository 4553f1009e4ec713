"""Offer the model only the tools that fit this turn: fewer tools, less prefill, fewer wrong calls.

A tool scores by its keywords (and its connector's) found in the text, plus a small lexical
retrieval (BM25-like weighting) over its name and description. The text is the user's request
and what tools said during the turn, so "Wi-Fi is off" can bring the Wi-Fi tool in mid-turn.
A change tool offered without a way to find what it changes ("Archive the newsletter from
Fjord" fits only `mail.move`) brings its connector's best search or list tool along, while
there is room.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from hearth.tools import Tool

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "i", "in",
        "is", "it", "me", "my", "of", "on", "or", "please", "the", "this", "to", "what", "with",
        "you", "your",
    }
)  # fmt: skip
KEYWORD_WEIGHT = 3.0
LOOKUPS = ("search", "list")  # a read tool named <connector>.search or .list… finds things


def words(text: str) -> list[str]:
    """Lower-case word stems: plural and -ing endings dropped so 'emails' meets 'email'."""
    found = []
    for word in _WORD.findall(text.lower().replace("wi-fi", "wifi")):
        if word in _STOP:
            continue
        for suffix in ("ing", "es", "s"):
            if len(word) > len(suffix) + 2 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        found.append(word)
    return found


def select_tools(text: str, tools: Sequence[Tool], *, limit: int = 6) -> list[Tool]:
    """The best-fitting tools for `text`, at most `limit`, none if nothing fits."""
    query = set(words(text))
    if not query or not tools:
        return []
    documents = [Counter(words(f"{t.name.replace('.', ' ')} {t.description}")) for t in tools]
    idf = _inverse_frequencies(documents, len(tools))
    scored = []
    for index, (tool, document) in enumerate(zip(tools, documents, strict=True)):
        score = _keyword_score(tool, query) + sum(
            idf[word] * document[word] / (document[word] + 1.0) for word in query & set(document)
        )
        if score > 0:
            scored.append((-score, index, tool))
    ranked = [tool for _, _, tool in sorted(scored)]
    return _with_lookups(ranked[:limit], ranked, tools, limit)


def _with_lookups(
    chosen: list[Tool], ranked: list[Tool], tools: Sequence[Tool], limit: int
) -> list[Tool]:
    for group in dict.fromkeys(_group(t) for t in chosen if t.effect != "read" and _group(t)):
        if len(chosen) >= limit:
            break
        if any(_group(t) == group and _is_lookup(t) for t in chosen):
            continue
        lookups = [t for t in [*ranked, *tools] if _group(t) == group and _is_lookup(t)]
        if lookups:
            chosen.append(lookups[0])
    return chosen


def _group(tool: Tool) -> str:
    return tool.name.partition(".")[0] if "." in tool.name else ""


def _is_lookup(tool: Tool) -> bool:
    return tool.effect == "read" and tool.name.partition(".")[2].startswith(LOOKUPS)


def _keyword_score(tool: Tool, query: set[str]) -> float:
    keywords = {stem for keyword in tool.keywords for stem in words(keyword)}
    return KEYWORD_WEIGHT * len(keywords & query)


def _inverse_frequencies(documents: Iterable[Counter[str]], count: int) -> dict[str, float]:
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(set(document))
    return {word: math.log(1 + (count - n + 0.5) / (n + 0.5)) for word, n in frequency.items()}
