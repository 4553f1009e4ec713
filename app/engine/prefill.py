"""Reading a prompt into llama.cpp's memory a batch at a time, saying how far it has got.

The prompt's fixed prefix (system text and tools) is loaded from its kept state when there is
one; otherwise it is read apart from the rest, so that its state can be kept for next time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Sequence

from hearth.engine.cache import DecodeAborted, PromptCache
from hearth.engine.prefix import PrefixKey, PrefixStates
from hearth.generation import GenerationStats, PromptProgress

log = logging.getLogger("hearth.engine.llama")


def prefill(
    cache: PromptCache,
    prompt: list[int],
    stats: GenerationStats,
    *,
    boundary: int | None,
    prefix: int,
    prefixes: PrefixStates | None,
    key_of: Callable[[Sequence[int]], PrefixKey],
) -> Generator[PromptProgress, None, bool]:
    """Read `prompt` after what memory still shares with it; False when the user stopped it.

    `boundary` is where the history ends (a snapshot is taken there on memory that cannot
    rewind); `prefix` is how many tokens are the fixed prefix, kept in `prefixes`.
    """
    started = time.perf_counter()
    reused = cache.reuse(prompt)
    stats.prefix_tokens = prefix
    try:
        key = None
        if prefixes is not None and reused < prefix:
            key = key_of(prompt[:prefix])
            stats.prefix_source = _load_prefix(cache, prompt[:prefix], key, prefixes)
            if stats.prefix_source != "computed":
                reused, key = prefix, None
        start = len(cache.tokens)
        total = len(prompt) - start
        yield PromptProgress(0, total)
        if key is not None and prefixes is not None:
            for _ in cache.reading(prompt[start:prefix]):
                yield PromptProgress(len(cache.tokens) - start, total)
            _keep_prefix(cache, prompt[:prefix], key, prefixes)
        done = len(cache.tokens)
        # Only memory that cannot rewind needs the snapshot, and a split batch costs a pass.
        wanted = boundary is not None and boundary >= done and not cache.rewindable
        for _ in cache.reading(prompt[done:], checkpoint_at=boundary if wanted else None):
            yield PromptProgress(len(cache.tokens) - start, total)
    except DecodeAborted:
        return False
    finally:
        stats.reused_tokens = reused
        stats.evaluated_tokens = len(cache.tokens) - reused
        stats.prefill_seconds = time.perf_counter() - started
    return True


def _load_prefix(
    cache: PromptCache, tokens: list[int], key: PrefixKey, prefixes: PrefixStates
) -> str:
    """Make memory hold `tokens` from their kept state if there is one; returns where it came
    from ("memory", "disk"), or "computed" when they must be read now."""
    found = prefixes.get(key)
    if found is not None:
        state, source = found
        if cache.load_state(tokens, state):
            cache.remember(tokens, state)
            return source
        log.debug("llama.cpp refused the kept prefix state %s", key.file_name)
        prefixes.discard(key)
    return "computed"


def _keep_prefix(
    cache: PromptCache, tokens: list[int], key: PrefixKey, prefixes: PrefixStates
) -> None:
    """Keep the state of the prefix just read, for the conversations to come."""
    state = cache.state()
    cache.remember(tokens, state)
    prefixes.put(key, state)
