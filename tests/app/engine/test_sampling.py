"""Sampling per turn: the card's thinking and non-thinking values, and no penalty on tool turns."""

from __future__ import annotations

import ctypes

import llama_cpp
import pytest

from hearth.engine.samplers import penalty_sampler
from hearth.engine.sampling import ModelSampling, Sampling
from hearth.generation import GenerationSettings
from hearth.models.catalog import load_catalog

CARD = ModelSampling.from_card(
    {"temp": 1.0, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "penalty_present": 1.5},
    {"temp": 0.7, "top_p": 0.8, "top_k": 20, "min_p": 0.0, "penalty_present": 2.0},
)


def test_thinking_and_non_thinking_turns_get_their_own_values() -> None:
    settings = GenerationSettings()
    thinking = CARD.for_turn(settings, thinking=True, may_call_tools=False)
    direct = CARD.for_turn(settings, thinking=False, may_call_tools=False)
    assert (thinking.temperature, thinking.top_p, thinking.presence_penalty) == (1.0, 0.95, 1.5)
    assert (direct.temperature, direct.top_p, direct.presence_penalty) == (0.7, 0.8, 2.0)
    assert thinking.top_k == direct.top_k == 20


@pytest.mark.parametrize("thinking", [True, False])
def test_a_turn_that_may_call_tools_has_no_presence_penalty(thinking: bool) -> None:
    settings = GenerationSettings(temperature=0.3)
    chosen = CARD.for_turn(settings, thinking=thinking, may_call_tools=True)
    assert chosen.presence_penalty == 0.0
    assert chosen.temperature == 0.3  # the request's own values still apply
    assert chosen.top_p == (0.95 if thinking else 0.8)


def test_a_gguf_overrides_the_card_in_both_modes() -> None:
    both = CARD.with_gguf({"top_k": 40})
    assert both.thinking.top_k == both.no_think.top_k == 40
    assert both.no_think.presence_penalty == 2.0


def test_the_catalog_card_values_reach_both_modes() -> None:
    entry = load_catalog().get("qwen3.5-0.8b-q4_k_m")
    card = ModelSampling.from_card(entry.sampling, entry.no_think_sampling)
    assert card.thinking.presence_penalty == 1.5 and card.thinking.top_p == 0.95
    assert card.no_think.presence_penalty == 2.0 and card.no_think.top_p == 1.0
    smol = load_catalog().get("smollm2-135m-test")
    assert smol.no_think_sampling == smol.sampling  # one set: used for every turn


def _penalised_logits(sampler: llama_cpp.llama_sampler_p, history: list[int]) -> list[float]:
    for token in history:
        llama_cpp.llama_sampler_accept(sampler, token)
    cells = [llama_cpp.llama_token_data(id=i, logit=0.0, p=0.0) for i in range(4)]
    data = (llama_cpp.llama_token_data * 4)(*cells)
    array = llama_cpp.llama_token_data_array(data=data, size=4, selected=-1, sorted=False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
    return [data[i].logit for i in range(4)]


def test_the_penalty_stage_applies_the_presence_penalty_once_per_seen_token() -> None:
    sampler = penalty_sampler(Sampling(presence_penalty=1.5), n_vocab=4)
    assert sampler is not None
    try:
        # Token 2 seen twice: a presence penalty takes 1.5 once (a frequency one would take 3.0).
        assert _penalised_logits(sampler, [1, 2, 2]) == [0.0, -1.5, -1.5, 0.0]
    finally:
        llama_cpp.llama_sampler_free(sampler)


def test_no_penalty_stage_when_both_penalties_are_off() -> None:
    assert penalty_sampler(Sampling(), n_vocab=4) is None
    tool_turn = CARD.for_turn(GenerationSettings(), thinking=True, may_call_tools=True)
    assert penalty_sampler(tool_turn, n_vocab=4) is None
