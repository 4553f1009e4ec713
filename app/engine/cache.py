"""Keeps what llama.cpp's memory holds in step with the prompt, so each turn only appends.

Attention-only models can drop any suffix of their KV cache. Hybrid and recurrent models
(Qwen3.5's DeltaNet layers) cannot be partly rewound, so for them the cache snapshots the
sequence state at turn boundaries and restores the newest snapshot that the next prompt
still shares, instead of re-reading the whole conversation.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp

from hearth.engine.threads import ThreadTuner
from hearth.errors import EngineError

SEQ = 0


class DecodeAborted(EngineError):
    """llama.cpp stopped a decode because the user asked to stop."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    tokens: tuple[int, ...]
    state: bytes | bytearray | memoryview


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    size = min(len(a), len(b))
    for index in range(size):
        if a[index] != b[index]:
            return index
    return size


class PromptCache:
    """Evaluates prompts into one llama.cpp sequence, reusing whatever prefix is already there."""

    def __init__(
        self,
        ctx: llama_cpp.llama_context_p,
        *,
        n_batch: int,
        rewindable: bool,
        tuner: ThreadTuner | None = None,
    ) -> None:
        self._ctx = ctx
        self.tuner = tuner
        self._memory = llama_cpp.llama_get_memory(ctx)
        self._n_batch = n_batch
        self.rewindable = rewindable
        self.tokens: list[int] = []
        self._checkpoints: list[Checkpoint] = []
        self._max_checkpoints = 3
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, 1)

    def close(self) -> None:
        if self._batch is not None:
            llama_cpp.llama_batch_free(self._batch)
            self._batch = None

    def reuse(self, prompt: Sequence[int]) -> int:
        """Make memory hold a prefix of `prompt` that leaves at least one token to evaluate."""
        limit = len(prompt) - 1
        keep = min(common_prefix(self.tokens, prompt), limit)
        checkpoint = self._best_checkpoint(prompt, limit)
        if self.rewindable and llama_cpp.llama_memory_seq_rm(self._memory, SEQ, keep, -1):
            # Also clears cells a decode left behind if it was interrupted before bookkeeping.
            del self.tokens[keep:]
            return keep
        if keep == len(self.tokens) and (checkpoint is None or len(checkpoint.tokens) <= keep):
            return keep
        self.clear()
        if checkpoint is not None and self._load(checkpoint):
            return len(checkpoint.tokens)
        return 0

    def _best_checkpoint(self, prompt: Sequence[int], limit: int) -> Checkpoint | None:
        fitting = [
            c
            for c in self._checkpoints
            if len(c.tokens) <= limit and tuple(prompt[: len(c.tokens)]) == c.tokens
        ]
        return max(fitting, key=lambda c: len(c.tokens), default=None)

    def _load(self, checkpoint: Checkpoint) -> bool:
        return self.load_state(checkpoint.tokens, checkpoint.state)

    def load_state(self, tokens: Sequence[int], state: bytes | bytearray | memoryview) -> bool:
        """Replace memory with `state`, the sequence after `tokens`; False if llama.cpp refused
        it (memory is then empty)."""
        self.clear()
        buffer: Any
        if isinstance(state, bytearray | memoryview):
            buffer = (ctypes.c_uint8 * len(state)).from_buffer(state)
        else:  # read only by llama.cpp, so the bytes object's own buffer will do
            buffer = ctypes.cast(ctypes.c_char_p(state), ctypes.POINTER(ctypes.c_uint8))
        if llama_cpp.llama_state_seq_set_data(self._ctx, buffer, len(state), SEQ):
            self.tokens = list(tokens)
            return True
        self.clear()
        return False

    def state(self) -> bytearray:
        """The whole sequence's state as it is now (attention cache and recurrent state)."""
        size = llama_cpp.llama_state_seq_get_size(self._ctx, SEQ)
        state = bytearray(size)
        buffer = (ctypes.c_uint8 * size).from_buffer(state)
        written = llama_cpp.llama_state_seq_get_data(self._ctx, buffer, size, SEQ)
        del buffer
        del state[written:]
        return state

    def remember(self, tokens: Sequence[int], state: bytes | bytearray | memoryview) -> None:
        """Keep a state made elsewhere (a stored prefix's) as a snapshot to come back to."""
        if self.rewindable or any(len(c.tokens) == len(tokens) for c in self._checkpoints):
            return
        self._checkpoints.append(Checkpoint(tuple(tokens), state))
        del self._checkpoints[: -self._max_checkpoints]

    def clear(self) -> None:
        """Forget everything in memory (checkpoints stay)."""
        llama_cpp.llama_memory_clear(self._memory, True)
        self.tokens = []

    def reading(self, tokens: Sequence[int], *, checkpoint_at: int | None = None) -> Iterator[int]:
        """Decode `tokens` after what memory holds, a batch at a time, yielding how many are
        read after each; `checkpoint_at` is an absolute position to snapshot on the way."""
        base = len(self.tokens)
        split = None if checkpoint_at is None else checkpoint_at - base
        position = 0
        if split == 0:
            self.save_checkpoint()
        while position < len(tokens):
            end = min(position + self._n_batch, len(tokens))
            if split is not None and position < split < end:
                end = split
            self._decode(tokens[position:end])
            position = end
            if position == split:
                self.save_checkpoint()
            yield position

    def append(self, tokens: Sequence[int]) -> None:
        """Decode tokens produced during generation."""
        for start in range(0, len(tokens), self._n_batch):
            self._decode(tokens[start : start + self._n_batch])

    def save_checkpoint(self) -> None:
        """Snapshot the sequence here; only needed where memory cannot be rewound."""
        if not self.rewindable:
            self.remember(self.tokens, self.state())

    def _decode(self, tokens: Sequence[int]) -> None:
        batch = self._batch
        start = len(self.tokens)
        for index, token in enumerate(tokens):
            batch.token[index] = token
            batch.pos[index] = start + index
            batch.n_seq_id[index] = 1
            batch.seq_id[index][0] = SEQ
            batch.logits[index] = False
        batch.logits[len(tokens) - 1] = True
        batch.n_tokens = len(tokens)
        tuner = self.tuner if len(tokens) == 1 else None
        if tuner is not None:
            tuner.before_token()
        started = time.perf_counter()
        status = llama_cpp.llama_decode(self._ctx, batch)
        if status == 0:
            if tuner is not None:
                tuner.after_token(time.perf_counter() - started)
            self.tokens.extend(tokens)
            return
        self._after_failed_decode()
        if status == 2:
            raise DecodeAborted("generation stopped")
        if status == 1:
            raise EngineError("llama.cpp found no room in its context for this batch")
        raise EngineError(f"llama.cpp failed to decode (status {status})")

    def _after_failed_decode(self) -> None:
        # llama.cpp drops a failed batch from attention caches, but a recurrent state may
        # already be advanced; trust nothing past the last good batch.
        if not self.rewindable:
            self.clear()
        else:
            llama_cpp.llama_memory_seq_rm(self._memory, SEQ, len(self.tokens), -1)
