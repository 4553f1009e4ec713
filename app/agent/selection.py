"""How well each tool fits a piece of text: the scores the turn's offer is built from.

A tool scores by its keywords (and its connector's) found in the text, plus a small lexical
retrieval (BM25-like weighting) over its name and description. `select_tools` picks a few:
a change tool picked without a way to find what it changes ("Archive the newsletter from
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
    """Lower-case word stems: plural, -ing and -ed endings dropped so 'emails' meets 'email'."""
    found = []
    for word in _WORD.findall(text.lower().replace("wi-fi", "wifi")):
        if word in _STOP:
            continue
        if len(word) > 4 and word.endswith("ed"):
            found.append(word[:-1])  # "moved" meets "move", and "emailed" meets "email"
            word = word[:-2]
        found.append(_stem(word))
    return found


def _stem(word: str) -> str:
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]  # "boxes", "dishes"; but "notes" is "note" and "messages" "message"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tool_scores(text: str, tools: Sequence[Tool]) -> list[tuple[Tool, float]]:
    """Each tool `text` fits, best first, with its score: keywords plus lexical retrieval."""
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
    return [(tool, -negative) for negative, _, tool in sorted(scored)]


def select_tools(text: str, tools: Sequence[Tool], *, limit: int = 6) -> list[Tool]:
    """The best-fitting tools for `text`, at most `limit`, none if nothing fits.

    Sessions offer whole connectors (`hearth.agent.offer`); this is the narrower pick for a
    caller that wants a few tools for one piece of text.
    """
    ranked = [tool for tool, _ in tool_scores(text, tools)]
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
