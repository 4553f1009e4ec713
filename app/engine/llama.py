"""`LlamaCppModel`: a GGUF model run in-process through llama.cpp's C API."""

from __future__ import annotations

import ctypes
import dataclasses
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import llama_cpp

from hearth.engine.abort import AbortFlag
from hearth.engine.cache import PromptCache
from hearth.engine.decode import Reply
from hearth.engine.llama_setup import (
    describe,
    is_rewindable,
    load_model,
    make_context,
    sampling_metadata,
)
from hearth.engine.prefill import prefill
from hearth.engine.prefix import PrefixKey, PrefixStates, file_identity, llama_build
from hearth.engine.prefix_length import PrefixLengths
from hearth.engine.sampling import ModelSampling, Sampling
from hearth.engine.template import ChatTemplate
from hearth.engine.threads import ThreadPolicy, ThreadTuner
from hearth.errors import ContextOverflow, EngineError
from hearth.generation import (
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    ModelInfo,
)
from hearth.messages import CancelToken, Message, ToolSpec


class LlamaCppModel:
    """Loads a GGUF once and answers one request at a time on the calling thread."""

    def __init__(
        self,
        path: Path | str,
        *,
        n_ctx: int = 8192,
        n_batch: int = 64,
        threads: ThreadPolicy | None = None,
        sampling: Sampling | ModelSampling | None = None,
        chat_template: str | None = None,
        prefixes: PrefixStates | None = None,
    ) -> None:
        """Load `path`; `chat_template` replaces a GGUF's missing or broken template.

        `prefixes` keeps the state of each prompt's fixed prefix (system text and tools), so a
        new conversation loads it instead of reading the tools again.

        `sampling` is the model card's: one set, or one for thinking turns and one for the
        others; a GGUF's own `general.sampling.*` values override it. `threads` defaults to
        the headless policy (every physical core).
        """
        self.path = Path(path)
        self._model = load_model(self.path)
        metadata = self._model.metadata()
        self.vocab = self._model.vocab
        self._pieces: dict[int, bytes] = {}
        threads = threads or ThreadPolicy.automatic()
        self._threads = threads
        self._context, self._layout = make_context(
            self._model, self.path, n_ctx=n_ctx, n_batch=n_batch, threads=threads
        )
        self.ctx = self._context.ctx
        self.n_ctx = llama_cpp.llama_n_ctx(self.ctx)
        self.template = ChatTemplate.from_source(
            chat_template or metadata.get("tokenizer.chat_template"),
            bos_token=self._token_text(self._model.token_bos()),
            eos_token=self._token_text(self._model.token_eos()),
        )
        if not isinstance(sampling, ModelSampling):
            sampling = ModelSampling.same(sampling or Sampling())
        self.sampling = sampling.with_gguf(sampling_metadata(metadata))
        self.cache = PromptCache(
            self.ctx,
            n_batch=n_batch,
            rewindable=is_rewindable(self._model),
            tuner=self._tuner(threads),
        )
        self.prefixes = prefixes
        self._prefix_lengths = PrefixLengths(
            lambda messages, tools, settings: self.render(messages, tools, settings)[0],
            supports_thinking=self.template.supports_thinking,
        )
        self._identity: str | None = None
        self._n_batch = n_batch
        self._lock = threading.Lock()
        self._closed = False
        self._cancel: CancelToken | None = None
        # The flag llama.cpp's decode reads to stop; each reply raises its own on cancel.
        self._abort = AbortFlag()
        self._abort.watch(self.ctx)
        self._info = ModelInfo(
            name=metadata.get("general.name") or self.path.stem,
            source=str(self.path),
            architecture=metadata.get("general.architecture", "unknown"),
            quantization=describe(self._model).rsplit(" ", 1)[-1],
            context_length=self.n_ctx,
            tool_format=self.template.tool_format.name,
            threads=threads.decode,
        )

    def _tuner(self, threads: ThreadPolicy) -> ThreadTuner:
        def apply(decode: int, prefill: int) -> None:
            llama_cpp.llama_set_n_threads(self.ctx, decode, prefill)

        return ThreadTuner(threads, apply)

    @property
    def threads(self) -> ThreadPolicy:
        return self._threads

    def use_threads(self, threads: ThreadPolicy) -> None:
        """Change the thread policy between replies; no reload needed."""
        with self._lock:
            self._threads = threads
            self.cache.tuner = self._tuner(threads)
            self._info = dataclasses.replace(self._info, threads=threads.decode)

    @property
    def info(self) -> ModelInfo:
        return self._info

    def _token_text(self, token: int) -> str:
        return "" if token < 0 else self.piece(token).decode("utf-8", errors="replace")

    def piece(self, token: int) -> bytes:
        """The bytes of one token, special tokens included (cached)."""
        cached = self._pieces.get(token)
        if cached is None:
            buffer = ctypes.create_string_buffer(128)
            size = llama_cpp.llama_token_to_piece(self.vocab, token, buffer, len(buffer), 0, True)
            cached = buffer.raw[: max(size, 0)]
            self._pieces[token] = cached
        return cached

    def tokenize(self, text: str, *, add_bos: bool = False) -> list[int]:
        return list(self._model.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def render(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: GenerationSettings
    ) -> tuple[list[int], int | None, str]:
        """Prompt tokens, the position where the history ends, and the prompt text."""
        thinking = settings.enable_thinking and self.template.supports_thinking
        text = self.template.render(messages, tools, enable_thinking=thinking)
        history = self.template.render(
            messages, tools, add_generation_prompt=False, enable_thinking=thinking
        )
        add_bos = self._model.add_bos_token() and not (
            self.template.bos_token and text.startswith(self.template.bos_token)
        )
        tokens = self.tokenize(text, add_bos=add_bos)
        boundary = None
        if text.startswith(history):
            history_tokens = self.tokenize(history, add_bos=add_bos)
            if tokens[: len(history_tokens)] == history_tokens:
                boundary = len(history_tokens)
        return tokens, boundary, text

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        """Stream one assistant reply. Only one reply runs at a time per model."""
        settings = settings or GenerationSettings()
        cancel = cancel or CancelToken()
        offered = () if settings.tool_choice == "none" else tuple(tools)
        with self._lock:
            if self._closed:
                raise EngineError(f"{self.info.name} was unloaded; choose a model to continue")
            prompt, boundary, text = self.render(messages, offered, settings)
            sampling = self.sampling.for_turn(
                settings,
                thinking=settings.enable_thinking and self.template.supports_thinking,
                may_call_tools=bool(offered),
            )
            if len(prompt) >= self.n_ctx:
                raise ContextOverflow(
                    f"the conversation is {len(prompt)} tokens but the context holds {self.n_ctx};"
                    " start a new conversation or load the model with a larger context"
                )
            stats = GenerationStats(prompt_tokens=len(prompt))
            prefix = self._prefix_length(messages, offered, settings, prompt)
            self._cancel = cancel
            # A fresh flag: an old reply's cancel cannot stop this one. It is watched before the
            # old one is let go, so llama.cpp never holds a pointer to freed memory.
            abort = AbortFlag()
            abort.watch(self.ctx)
            self._abort = abort
            stop_listening = cancel.when_cancelled(self._abort.raise_flag)
            try:
                finished = yield from prefill(
                    self.cache,
                    prompt,
                    stats,
                    boundary=boundary,
                    prefix=prefix,
                    prefixes=self.prefixes,
                    key_of=self._prefix_key,
                )
                if not finished:
                    yield GenerationDone(Message.assistant(), "cancelled", stats)
                    return
                reply = Reply(
                    self,
                    tool_format=self.template.tool_format,
                    tools=offered,
                    settings=settings,
                    sampling=sampling,
                    start_in_reasoning=text.rstrip().endswith("<think>"),
                    stats=stats,
                )
                yield from reply.run(lambda: cancel.cancelled)
            finally:
                stop_listening()
                self._cancel = None

    def prefix_key(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
    ) -> PrefixKey | None:
        """The key this prompt's fixed prefix is kept under; None when it has none."""
        settings = settings or GenerationSettings()
        with self._lock:
            prompt = self.render(messages, tools, settings)[0]
            length = self._prefix_length(messages, tools, settings, prompt)
            return self._prefix_key(prompt[:length]) if length else None

    def _prefix_key(self, tokens: Sequence[int]) -> PrefixKey:
        if self._identity is None:
            self._identity = file_identity(self.path)
        return PrefixKey.of(
            model=self._identity,
            template=self.template.source,
            build=llama_build(),
            context=self._layout,
            tokens=tokens,
        )

    def _prefix_length(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        settings: GenerationSettings,
        prompt: Sequence[int],
    ) -> int:
        """How many of `prompt`'s tokens are its fixed prefix; 0 with no prefixes kept."""
        if self.prefixes is None:
            return 0
        return self._prefix_lengths.of(messages, tools, settings, prompt)

    def close(self) -> None:
        """Free the model; a reply still running is stopped first, never cut off mid-token."""
        running = self._cancel
        if running is not None:
            running.cancel()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self.cache.close()
            self._context.close()
            self._model.close()

    def __enter__(self) -> LlamaCppModel:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
