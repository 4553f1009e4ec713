"""Which tools a turn offers: every tool of each connector the turn involves, fixed for the turn.

A request that crosses connectors ("find Mette's mail and put the meeting in my calendar")
needs all of both connectors' tools at every step, so tools come and go by connector, never
one by one. A connector is involved when the request names it (its own keywords: "mail",
"calendar", "Wi-Fi"), when an earlier turn of the conversation used it, or when one of its
tools fits the request's words. The set is decided when the turn starts, in one canonical
order, so the prompt the model reads stays the same at every step: the engine then only
reads what a step appended, and the system text plus tools is a prefix whose model state is
computed once (see `hearth.engine.prefix`). A tool's output may show another connector is
needed ("the mail server cannot be reached: Wi-Fi is off"); it joins at the end of the set,
which is never reordered or shrunk within a turn.

What the offer costs is capped by an estimate of the tools' prompt tokens, not by a count.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hearth.agent.selection import tool_scores, words
from hearth.tools import Tool

# Tool schemas are JSON: about 3.5 characters a token with SmolLM2's tokenizer over the built-in
# tools; 3 keeps the estimate on the safe side for other tokenizers.
CHARS_PER_TOKEN = 3.0
# A connector that the request does not name comes in when one of its tools fits at all and
# scores at least CLOSE times the best tool's score: "find" alone fits every connector's
# search, and should not bring in files for "find Mette's mail".
CLOSE = 0.5
# What being named, or used earlier in the conversation, counts for against a tool's score.
VOUCHED = 6.0


def connector_of(tool: Tool) -> str:
    """The connector a tool belongs to (a plain tool's name prefix, or its own name)."""
    return tool.connector or tool.name.partition(".")[0]


def estimate_tokens(tool: Tool) -> int:
    """What a tool's schema costs in the prompt, estimated from its JSON."""
    text = json.dumps(tool.spec().as_openai(), ensure_ascii=False)
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Offer:
    """The tools a turn offers, by connector; `left_out` were involved but over the budget."""

    connectors: tuple[str, ...] = ()
    tools: tuple[Tool, ...] = ()
    left_out: tuple[str, ...] = ()
    tokens: int = 0
    grown: tuple[str, ...] = field(default=())

    @property
    def names(self) -> frozenset[str]:
        return frozenset(tool.name for tool in self.tools)


class OfferPlanner:
    """Decides a turn's offer from every tool Hearth has; `budget` caps the estimated tokens."""

    def __init__(self, tools: Sequence[Tool], *, budget: int) -> None:
        self.tools = list(tools)
        self.budget = budget
        self._by_connector: dict[str, list[Tool]] = {}
        for tool in self.tools:
            self._by_connector.setdefault(connector_of(tool), []).append(tool)
        self._cost = {
            name: sum(estimate_tokens(tool) for tool in tools)
            for name, tools in self._by_connector.items()
        }
        self._names = {
            name: _naming_words(name, tools) for name, tools in self._by_connector.items()
        }
        self._own = _own_words(self._by_connector)

    def plan(self, request: str, *, used: Iterable[str] = ()) -> Offer:
        """The offer for a turn that starts with `request`, after turns that used `used`."""
        fit = self._fit(request)
        named = set(self.named(request))
        earlier = {name for name in used if name in self._by_connector}
        top = max(fit.values(), default=0.0)
        fitting = {name for name, score in fit.items() if score >= top * CLOSE}
        # When the budget cannot hold them all, the likeliest go first.
        weight = {
            name: fit.get(name, 0.0) + VOUCHED * ((name in named) + (name in earlier))
            for name in named | earlier | fitting
        }
        wanted = sorted(weight, key=lambda name: (-weight[name], name))
        chosen: list[str] = []
        left_out: list[str] = []
        spent = 0
        for name in wanted:
            if spent + self._cost[name] > self.budget:
                left_out.append(name)
                continue
            chosen.append(name)
            spent += self._cost[name]
        return self._offer(sorted(chosen), left_out, spent)

    def everything(self) -> Offer:
        """Every tool Hearth has, in the canonical order, whatever the budget."""
        names = sorted(self._by_connector)
        return self._offer(names, (), sum(self._cost[name] for name in names))

    def grow(self, offer: Offer, text: str, *, failed: bool = False) -> Offer:
        """`offer` with every connector `text` names added at its end, while the budget allows.

        A tool's output is read for what it says is needed, not for every word it shares with
        a description: what a tool returned counts only where it names a connector ("you are
        offline"); a failure also counts by a word of one connector's tools alone ("Wi-Fi").
        """
        added: list[str] = []
        left_out, spent = list(offer.left_out), offer.tokens
        found = set(words(text))
        signs = self._own if failed else self._names
        for name in (name for name, own in signs.items() if own & found):
            if name in offer.connectors or name in added:
                continue
            if spent + self._cost[name] > self.budget:
                if name not in left_out:
                    left_out.append(name)
                continue
            added.append(name)
            spent += self._cost[name]
        if not added:
            return offer
        return self._offer(
            [*offer.connectors, *added], left_out, spent, grown=(*offer.grown, *added)
        )

    def named(self, text: str) -> list[str]:
        """Connectors whose own words (name, keywords every tool of it shares) `text` uses, or
        one of whose tools it calls by name ("call selftest.echo")."""
        found, lowered = set(words(text)), text.lower()
        return [
            name
            for name, naming in self._names.items()
            if naming & found
            or any(tool.name.lower() in lowered for tool in self._by_connector[name])
        ]

    def _fit(self, request: str) -> dict[str, float]:
        """Each connector's best tool score for `request`, best first."""
        best: dict[str, float] = {}
        for tool, score in tool_scores(request, self.tools):
            name = connector_of(tool)
            best[name] = max(best.get(name, 0.0), score)
        return dict(sorted(best.items(), key=lambda item: -item[1]))

    def _offer(
        self,
        connectors: Sequence[str],
        left_out: Sequence[str],
        spent: int,
        *,
        grown: tuple[str, ...] = (),
    ) -> Offer:
        tools = tuple(tool for name in connectors for tool in self._by_connector[name])
        missing = tuple(name for name in left_out if name not in connectors)
        return Offer(tuple(connectors), tools, missing, spent, grown)


def _naming_words(name: str, tools: Sequence[Tool]) -> set[str]:
    """A connector's own words: its name, and the keywords all its tools share (the
    connector's keywords are given to each of its tools)."""
    shared = set.intersection(*({w for k in t.keywords for w in words(k)} for t in tools))
    # A plain tool's connector is its name's prefix ("selftest" of "selftest.echo") or the
    # name itself, which can be a common word ("volume_set").
    own_name = words(name) if tools[0].connector or "." in tools[0].name else []
    return {*own_name, *shared}


def _own_words(by_connector: dict[str, list[Tool]]) -> dict[str, set[str]]:
    """Each connector's name and keywords that no other connector's tools have ("wifi")."""
    every = {
        name: {
            *_naming_words(name, tools),
            *(w for t in tools for k in t.keywords for w in words(k)),
        }
        for name, tools in by_connector.items()
    }
    return {
        name: mine - set().union(*(theirs for other, theirs in every.items() if other != name))
        for name, mine in every.items()
    }
