from __future__ import annotations

from hearth.engine.guards import RepetitionGuard


def feed(guard: RepetitionGuard, tokens: list[int]) -> int | None:
    """Index of the token at which the guard fired, or None."""
    for index, token in enumerate(tokens):
        if guard.add(token):
            return index
    return None


def test_a_phrase_repeated_in_a_loop_is_caught() -> None:
    phrase = [11, 12, 13, 14, 15, 16, 17]
    fired = feed(RepetitionGuard(), list(range(100, 130)) + phrase * 20)
    assert fired is not None and fired < 30 + 7 * 8


def test_a_single_token_repeated_is_caught() -> None:
    assert feed(RepetitionGuard(), [5] * 60) is not None


def test_ordinary_varied_text_is_not_flagged() -> None:
    tokens = [(i * 7919) % 5003 for i in range(2000)]
    assert feed(RepetitionGuard(), tokens) is None


def test_a_short_legitimate_repeat_is_not_flagged() -> None:
    # e.g. a markdown table rule: a few repeats of a short pattern
    assert feed(RepetitionGuard(), [1, 2] * 10 + list(range(50, 90))) is None


def test_reset_forgets_history() -> None:
    guard = RepetitionGuard()
    feed(guard, [3] * 40)
    guard.reset()
    assert feed(guard, [3] * 40) is None
