"""Guards against the failure modes of small models: endless thinking and looping output."""

from __future__ import annotations


class RepetitionGuard:
    """Notices when the newest tokens are one short pattern repeated over and over.

    For each period p it keeps how long the tail has matched itself shifted by p, so each new
    token costs O(max_period) comparisons and no rescans.
    """

    def __init__(self, *, max_period: int = 48, min_span: int = 48, min_repeats: int = 4) -> None:
        self.max_period = max_period
        self.min_span = min_span
        self.min_repeats = min_repeats
        self._tokens: list[int] = []
        self._runs = [0] * (max_period + 1)

    def add(self, token: int) -> bool:
        """Record a token; True when the output is looping."""
        tokens = self._tokens
        tokens.append(token)
        last = len(tokens) - 1
        looping = False
        for period in range(1, min(self.max_period, last) + 1):
            if tokens[last - period] == token:
                run = self._runs[period] + 1
                self._runs[period] = run
                span = run + period
                if span >= self.min_span and span >= period * self.min_repeats:
                    looping = True
            else:
                self._runs[period] = 0
        return looping

    def reset(self) -> None:
        self._tokens.clear()
        self._runs = [0] * (self.max_period + 1)
