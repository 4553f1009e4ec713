"""How far the model has read the prompt, reported per batch on the real SmolLM2 GGUF."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from hearth.engine.llama import LlamaCppModel
from hearth.engine.prefix import PrefixStates
from hearth.generation import (
    AnswerDelta,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    PromptProgress,
)
from hearth.messages import CancelToken, Message, ToolSpec

pytestmark = pytest.mark.model

N_BATCH = 16
GREEDY = GenerationSettings(temperature=0.0, max_tokens=8)
SYSTEM = Message.system("You are Hearth, a terse assistant.")
NOTES = ToolSpec(
    "notes.add",
    "Add a note.",
    {"type": "object", "properties": {"what": {"type": "string"}}, "required": ["what"]},
)
LONG = "Summarise: the tide came in and went out, and the gulls followed it. " * 8


def reading(events: Sequence[EngineEvent]) -> list[PromptProgress]:
    """The progress events, checked to come before anything else the model says."""
    progress = [e for e in events if isinstance(e, PromptProgress)]
    assert events[: len(progress)] == progress, "progress came after the model began to write"
    return progress


def assert_counts_up(progress: Sequence[PromptProgress], done: GenerationDone) -> None:
    total = done.stats.evaluated_tokens
    assert progress[0] == PromptProgress(0, total)
    assert {p.total for p in progress} == {total}
    steps = [b.read - a.read for a, b in itertools.pairwise(progress)]
    assert all(0 < step <= N_BATCH for step in steps), steps
    assert progress[-1].read == total and progress[-1].fraction == 1.0


@pytest.fixture(scope="module")
def batched(test_gguf: Path) -> Iterator[LlamaCppModel]:
    with LlamaCppModel(test_gguf, n_ctx=1024, n_batch=N_BATCH) as model:
        yield model


def test_a_prompt_is_read_batch_by_batch_up_to_its_total(batched: LlamaCppModel) -> None:
    batched.cache.clear()
    history = [SYSTEM, Message.user(LONG)]
    events = list(batched.generate(history, (), GREEDY))
    done = events[-1]
    assert isinstance(done, GenerationDone)
    progress = reading(events)
    assert_counts_up(progress, done)
    assert done.stats.evaluated_tokens == done.stats.prompt_tokens > 6 * N_BATCH
    assert len(progress) >= done.stats.prompt_tokens // N_BATCH + 1
    assert any(isinstance(e, AnswerDelta) for e in events)

    # The next turn reads only what it adds to the conversation.
    history += [done.message, Message.user("And in one word?")]
    events = list(batched.generate(history, (), GREEDY))
    again = events[-1]
    assert isinstance(again, GenerationDone)
    assert_counts_up(reading(events), again)
    assert 0 < again.stats.evaluated_tokens < again.stats.prompt_tokens // 2


def test_stopping_while_reading_ends_where_the_reading_got(batched: LlamaCppModel) -> None:
    batched.cache.clear()
    cancel = CancelToken()
    events: list[EngineEvent] = []
    for event in batched.generate([SYSTEM, Message.user(LONG)], (), GREEDY, cancel):
        events.append(event)
        if isinstance(event, PromptProgress) and event.read >= 2 * N_BATCH:
            cancel.cancel()
    done = events[-1]
    assert isinstance(done, GenerationDone) and done.stop_reason == "cancelled"
    progress = reading(events[:-1])
    assert progress[-1].read == done.stats.evaluated_tokens == 2 * N_BATCH < progress[0].total


def test_a_kept_prefix_is_not_read_again_and_a_new_one_counts(test_gguf: Path) -> None:
    prefixes = PrefixStates(None)
    first = [SYSTEM, Message.user("Add a note: buy milk.")]
    with LlamaCppModel(test_gguf, n_ctx=1024, n_batch=N_BATCH, prefixes=prefixes) as model:
        events = list(model.generate(first, [NOTES], GREEDY))
    done = events[-1]
    assert isinstance(done, GenerationDone) and done.stats.prefix_source == "computed"
    progress = reading(events)
    assert_counts_up(progress, done)
    # The prefix is read apart, so that its state can be kept: one batch ends where it ends.
    assert done.stats.prefix_tokens in {p.read for p in progress}

    second = [SYSTEM, Message.user("What notes do I have about the garden?")]
    with LlamaCppModel(test_gguf, n_ctx=1024, n_batch=N_BATCH, prefixes=prefixes) as model:
        events = list(model.generate(second, [NOTES], GREEDY))
    loaded = events[-1]
    assert isinstance(loaded, GenerationDone) and loaded.stats.prefix_source == "memory"
    assert_counts_up(reading(events), loaded)
    assert loaded.stats.evaluated_tokens == loaded.stats.prompt_tokens - loaded.stats.prefix_tokens
