"""llama.cpp's C sampler chains: sampling never copies logits into Python."""

from __future__ import annotations

import llama_cpp

from hearth.engine.sampling import Sampling
from hearth.errors import EngineError

DEFAULT_SEED = 0xFFFFFFFF  # LLAMA_DEFAULT_SEED: llama.cpp picks a random seed


class SamplerChain:
    """One owned `llama_sampler` chain, optionally led by a GBNF grammar."""

    def __init__(self, vocab: llama_cpp.llama_vocab_p, sampling: Sampling, grammar: str | None):
        self._chain = llama_cpp.llama_sampler_chain_init(
            llama_cpp.llama_sampler_chain_default_params()
        )
        if grammar is not None:
            constrained = llama_cpp.llama_sampler_init_grammar(
                vocab, grammar.encode("utf-8"), b"root"
            )
            if not constrained:
                self.close()
                raise EngineError("the tool-call grammar did not compile; see the log for why")
            self._add(constrained)
        if sampling.repeat_penalty != 1.0:
            self._add(llama_cpp.llama_sampler_init_penalties(64, sampling.repeat_penalty, 0.0, 0.0))
        if sampling.temperature <= 0:
            self._add(llama_cpp.llama_sampler_init_greedy())
            return
        self._add(llama_cpp.llama_sampler_init_top_k(sampling.top_k))
        self._add(llama_cpp.llama_sampler_init_top_p(sampling.top_p, 1))
        self._add(llama_cpp.llama_sampler_init_min_p(sampling.min_p, 1))
        self._add(llama_cpp.llama_sampler_init_temp(sampling.temperature))
        seed = DEFAULT_SEED if sampling.seed is None else sampling.seed
        self._add(llama_cpp.llama_sampler_init_dist(seed))

    def _add(self, sampler: llama_cpp.llama_sampler_p) -> None:
        llama_cpp.llama_sampler_chain_add(self._chain, sampler)

    def sample(self, ctx: llama_cpp.llama_context_p) -> int:
        """Sample from the last decoded position and advance the chain's state."""
        return int(llama_cpp.llama_sampler_sample(self._chain, ctx, -1))

    def close(self) -> None:
        if self._chain is not None:
            llama_cpp.llama_sampler_free(self._chain)
            self._chain = None
