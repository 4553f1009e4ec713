"""One assistant reply: sample, decode and parse token by token, under the loop guards.

Generation runs free until the model opens a tool call, then continues under a grammar built
from the offered tools, so every finished call names an offered tool with well-formed
arguments. Everything is appended to the same sequence; nothing is re-read.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from enum import Enum
from typing import Protocol

import llama_cpp

from hearth.engine.cache import DecodeAborted, PromptCache
from hearth.engine.formats import ToolFormat
from hearth.engine.grammar import OPEN_TAG
from hearth.engine.guards import RepetitionGuard
from hearth.engine.samplers import SamplerChain
from hearth.engine.sampling import Sampling
from hearth.engine.stream import THINK_CLOSE, OutputParser, Section
from hearth.generation import (
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    MalformedToolCall,
    StopReason,
    ToolCallEmitted,
)
from hearth.messages import Message, ToolSpec


class Backend(Protocol):
    """What a reply needs from the loaded model."""

    ctx: llama_cpp.llama_context_p
    vocab: llama_cpp.llama_vocab_p
    cache: PromptCache
    n_ctx: int

    def piece(self, token: int) -> bytes: ...

    def tokenize(self, text: str, *, add_bos: bool = False) -> list[int]: ...


class Phase(Enum):
    FREE = "free"
    CALL = "call"
    AFTER_CALL = "after_call"


def after_call_grammar(call_grammar: str) -> str:
    """After a finished call only another call or the end of the reply may follow."""
    renamed = call_grammar.replace("root ::=", "next-call ::=", 1)
    return f'{renamed}\nroot ::= ( "\\n"? "{OPEN_TAG}" next-call )?\n'


class Reply:
    """Generates one reply into the backend's sequence, yielding engine events."""

    def __init__(
        self,
        backend: Backend,
        *,
        tool_format: ToolFormat,
        tools: Sequence[ToolSpec],
        settings: GenerationSettings,
        sampling: Sampling,
        start_in_reasoning: bool,
        stats: GenerationStats,
    ) -> None:
        self.backend = backend
        self.tools = tuple(tools)
        self.settings = settings
        self.sampling = sampling
        self.stats = stats
        self.parser = OutputParser(tool_format, tools, start_in_reasoning=start_in_reasoning)
        self.guard = RepetitionGuard()
        self.phase = Phase.FREE
        self.force_call = settings.tool_choice == "required" and bool(tools)
        self._call_grammar = tool_format.grammar(tools) if tools else None
        self._chain = SamplerChain(backend.vocab, sampling, None)
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._reasoning_tokens = 0

    def run(self, cancelled: Callable[[], bool]) -> Iterator[EngineEvent]:
        started = time.perf_counter()
        try:
            stop = yield from self._loop(cancelled)
        except DecodeAborted:  # Stop arrived while llama.cpp was decoding a token
            stop = "cancelled"
        finally:
            self._chain.close()
            self.stats.decode_seconds = time.perf_counter() - started
        yield from self.parser.finish()
        parser = self.parser
        if stop == "end" and parser.calls:
            stop = "tool_calls"
        message = Message.assistant(
            parser.answer.strip(), reasoning=parser.reasoning.strip(), tool_calls=parser.calls
        )
        yield GenerationDone(message, stop, self.stats, tuple(parser.malformed))

    def _loop(self, cancelled: Callable[[], bool]) -> Generator[EngineEvent, None, StopReason]:
        backend, settings = self.backend, self.settings
        while True:
            if cancelled():
                return "cancelled"
            if self.stats.completion_tokens >= settings.max_tokens:
                return "max_tokens"
            if len(backend.cache.tokens) >= backend.n_ctx - 1:
                return "context_full"
            if (
                self.force_call
                and self.phase is Phase.FREE
                and self.parser.section is Section.ANSWER
            ):
                yield from self._inject(OPEN_TAG)
                self._enter_call()
                continue
            token = self._chain.sample(backend.ctx)
            self.stats.completion_tokens += 1
            if llama_cpp.llama_vocab_is_eog(
                backend.vocab, token
            ) or llama_cpp.llama_vocab_is_control(backend.vocab, token):
                if self.force_call and self.parser.section is Section.REASONING:
                    # A required call still comes when the model stops while thinking.
                    self._close_reasoning()
                    continue
                return "end"
            stop = yield from self._accept(token)
            if stop is not None:
                return stop

    def _accept(self, token: int) -> Generator[EngineEvent, None, StopReason | None]:
        text = self._utf8.decode(self.backend.piece(token))
        section = self.parser.section
        events = self.parser.feed(text)
        to_decode = [token]
        if self.phase is Phase.FREE and self.parser.section is Section.TOOL_CALL:
            to_decode = self._cut_at_trigger(text, token)
            self._enter_call()
        elif any(isinstance(e, ToolCallEmitted | MalformedToolCall) for e in events):
            if not self.settings.parallel_tool_calls:
                self.backend.cache.append(to_decode)
                yield from events
                return "tool_calls"
            self._enter_after_call()
        self.backend.cache.append(to_decode)
        yield from events
        return self._check_guards(token, section)

    def _cut_at_trigger(self, text: str, token: int) -> list[int]:
        """Keep text up to the opening tag; the grammar rewrites whatever came after it."""
        leftover = self.parser.tool_body
        if not leftover:
            return [token]
        self.parser.discard_tool_body()
        return self.backend.tokenize(text[: len(text) - len(leftover)])

    def _check_guards(self, token: int, section: Section) -> StopReason | None:
        if section is Section.REASONING:
            self._reasoning_tokens += 1
        looping = self.guard.add(token)
        if self.parser.section is Section.REASONING and (
            looping or self._reasoning_tokens >= self.settings.reasoning_budget
        ):
            self._close_reasoning()
            return None
        return "repetition" if looping else None

    def _close_reasoning(self) -> None:
        self.backend.cache.append(self.backend.tokenize(f"\n{THINK_CLOSE}\n\n"))
        self.parser.force_end_reasoning()
        self.guard.reset()

    def _inject(self, text: str) -> Iterator[EngineEvent]:
        self.backend.cache.append(self.backend.tokenize(text))
        yield from self.parser.feed(text)

    def _enter_call(self) -> None:
        self._switch(Phase.CALL, self._call_grammar)

    def _enter_after_call(self) -> None:
        self.force_call = False
        grammar = after_call_grammar(self._call_grammar) if self._call_grammar else None
        self._switch(Phase.AFTER_CALL, grammar)

    def _switch(self, phase: Phase, grammar: str | None) -> None:
        self._chain.close()
        self._chain = SamplerChain(self.backend.vocab, self.sampling, grammar)
        self.phase = phase
