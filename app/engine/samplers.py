"""llama.cpp's C sampler chains: sampling never copies logits into Python on the fast path.

A grammar is checked lazily, as llama.cpp's own `common_sampler` does: the free chain picks a
token, the grammar only vets that one token, and only a rejected pick pays for masking the
whole vocabulary. Inside a tool call most picks already fit, and Qwen's vocabulary is 248k.
"""

from __future__ import annotations

import ctypes
import math

import llama_cpp
import numpy as np

from hearth.engine.sampling import Sampling
from hearth.errors import EngineError

DEFAULT_SEED = 0xFFFFFFFF  # LLAMA_DEFAULT_SEED: llama.cpp picks a random seed
PENALTY_WINDOW = 64  # how many recent tokens the repeat and presence penalties look at
_TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])


class SamplerChain:
    """An owned `llama_sampler` chain, optionally constrained by a GBNF grammar."""

    def __init__(self, vocab: llama_cpp.llama_vocab_p, sampling: Sampling, grammar: str | None):
        self._vocab = vocab
        n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
        self._chain: llama_cpp.llama_sampler_p | None = _free_chain(sampling, n_vocab)
        self._grammar: llama_cpp.llama_sampler_p | None = None
        if grammar is not None:
            self._grammar = llama_cpp.llama_sampler_init_grammar(
                vocab, grammar.encode("utf-8"), b"root"
            )
            if not self._grammar:
                self.close()
                raise EngineError("the tool-call grammar did not compile; see the log for why")

    def sample(self, ctx: llama_cpp.llama_context_p) -> int:
        """Sample from the last decoded position and advance every sampler's state."""
        token = int(llama_cpp.llama_sampler_sample(self._chain, ctx, -1))
        if self._grammar is None:
            return token
        if not self._fits(token):
            token = self._sample_constrained(ctx)
        llama_cpp.llama_sampler_accept(self._grammar, token)
        return token

    def _fits(self, token: int) -> bool:
        candidate = llama_cpp.llama_token_data(id=token, logit=0.0, p=0.0)
        array = llama_cpp.llama_token_data_array(
            data=ctypes.pointer(candidate), size=1, selected=-1, sorted=False
        )
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(array))
        return not math.isinf(candidate.logit)

    def _sample_constrained(self, ctx: llama_cpp.llama_context_p) -> int:
        n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, -1), (n_vocab,))
        table = np.empty(n_vocab, dtype=_TOKEN_DATA)
        table["id"] = np.arange(n_vocab, dtype=np.int32)
        table["logit"] = logits
        table["p"] = 0.0
        array = llama_cpp.llama_token_data_array(
            data=table.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=n_vocab,
            selected=-1,
            sorted=False,
        )
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(array))
        llama_cpp.llama_sampler_apply(self._chain, ctypes.byref(array))
        token = int(array.data[array.selected].id)
        llama_cpp.llama_sampler_accept(self._chain, token)
        return token

    def close(self) -> None:
        for sampler in (self._chain, self._grammar):
            if sampler:
                llama_cpp.llama_sampler_free(sampler)
        self._chain = self._grammar = None


def penalty_sampler(sampling: Sampling, n_vocab: int) -> llama_cpp.llama_sampler_p | None:
    """The repeat and presence penalty stage, or None when both are off."""
    if sampling.repeat_penalty == 1.0 and sampling.presence_penalty == 0.0:
        return None
    init = llama_cpp.llama_sampler_init_penalties
    args = (PENALTY_WINDOW, sampling.repeat_penalty, 0.0, sampling.presence_penalty)
    # llama.cpp later dropped the leading n_vocab; a binding declares one form or the other,
    # and ctypes would shift every argument if we passed the wrong one.
    if len(getattr(init, "argtypes", ())) == len(args) + 1:
        return init(n_vocab, *args)  # type: ignore[no-any-return]
    return init(*args)  # type: ignore[no-any-return]


def _free_chain(sampling: Sampling, n_vocab: int) -> llama_cpp.llama_sampler_p:
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    stages = []
    penalties = penalty_sampler(sampling, n_vocab)
    if penalties is not None:
        stages.append(penalties)
    if sampling.temperature <= 0:
        stages.append(llama_cpp.llama_sampler_init_greedy())
    else:
        seed = DEFAULT_SEED if sampling.seed is None else sampling.seed
        stages += [
            llama_cpp.llama_sampler_init_top_k(sampling.top_k),
            llama_cpp.llama_sampler_init_top_p(sampling.top_p, 1),
            llama_cpp.llama_sampler_init_min_p(sampling.min_p, 1),
            llama_cpp.llama_sampler_init_temp(sampling.temperature),
            llama_cpp.llama_sampler_init_dist(seed),
        ]
    for stage in stages:
        llama_cpp.llama_sampler_chain_add(chain, stage)
    return chain  # type: ignore[no-any-return]
