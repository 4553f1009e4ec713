"""The in-process engine, run on the real SmolLM2-135M GGUF."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from hearth.engine.llama import LlamaCppModel
from hearth.engine.template import CHATML_TEMPLATE
from hearth.errors import ContextOverflow, EngineError, ModelFileError
from hearth.generation import (
    AnswerDelta,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    MalformedToolCall,
    PromptProgress,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import CancelToken, Message, ToolCall, ToolSpec

pytestmark = pytest.mark.model

GREEDY = GenerationSettings(temperature=0.0, max_tokens=40)
TOOLS = [
    ToolSpec(
        "get_weather",
        "Current weather for a city.",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    ),
    ToolSpec(
        "set_volume",
        "Set the speaker volume in percent.",
        {
            "type": "object",
            "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 100}},
            "required": ["level"],
        },
    ),
    ToolSpec(
        "create_note",
        "Create a note.",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "body": {"type": "string"},
                "pinned": {"type": "boolean"},
            },
            "required": ["title", "body"],
        },
    ),
]
PROMPTS = [
    "What's the weather in Paris?",
    "Turn the volume down to 20 percent.",
    "Make a note called groceries: eggs, milk and bread.",
    "Is it raining in Tokyo right now?",
    "Set volume to maximum.",
    "Write a pinned note titled Ideas with the text 'build a boat'.",
    "How cold is it in Oslo in fahrenheit?",
    "Mute the sound please.",
    "Remember that the dentist is on Friday.",
    "Weather for Lisbon, in celsius.",
    "Volume 55.",
    "Note to self: call mum.",
    "Do I need an umbrella in London today?",
    "Make it louder, 80%.",
    "Create a note 'Meeting' saying the meeting moved to 3pm.",
    "What's the temperature in New York?",
    "Lower the volume a bit, to 35.",
    "Jot down: buy stamps.",
    "Check the weather in Berlin.",
    "Set the speakers to 10.",
]


def collect(
    model: LlamaCppModel,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] = (),
    settings: GenerationSettings = GREEDY,
    cancel: CancelToken | None = None,
) -> tuple[list[EngineEvent], GenerationDone]:
    events = list(model.generate(messages, tools, settings, cancel))
    done = events[-1]
    assert isinstance(done, GenerationDone)
    assert sum(isinstance(e, GenerationDone) for e in events) == 1
    return events, done


def test_answer_streams_in_pieces(smol: LlamaCppModel) -> None:
    events, done = collect(smol, [Message.user("What is 2+2?")])
    deltas = [e.text for e in events if isinstance(e, AnswerDelta)]
    assert len(deltas) > 3
    assert done.message.content == "".join(deltas).strip()
    assert "4" in done.message.content
    assert done.stop_reason in ("end", "max_tokens")
    assert done.stats.prompt_tokens > 0 and done.stats.completion_tokens > 0
    assert smol.info.tool_format == "generic-json"
    assert smol.info.architecture == "llama"


def test_grammar_makes_every_call_parse_and_validate(smol: LlamaCppModel) -> None:
    """Every call the model finishes is valid; a call cut off by a guard is reported."""
    settings = GenerationSettings(max_tokens=256, tool_choice="required", seed=7)
    calls: list[ToolCall] = []
    unfinished, invalid = [], []
    for prompt in PROMPTS:
        events, done = collect(smol, [Message.user(prompt)], TOOLS, settings)
        calls += [e.call for e in events if isinstance(e, ToolCallEmitted)]
        for event in events:
            if isinstance(event, MalformedToolCall):
                cut_off = event.reason == "the tool call was not finished"
                (unfinished if cut_off else invalid).append(event)
        assert done.stop_reason in ("tool_calls", "max_tokens", "repetition"), done
    assert invalid == []
    assert len(calls) + len(unfinished) == len(PROMPTS)
    assert len(calls) >= len(PROMPTS) - 2, unfinished
    assert {call.name for call in calls} <= {tool.name for tool in TOOLS}


def test_no_tools_offered_means_no_calls(smol: LlamaCppModel) -> None:
    settings = GenerationSettings(temperature=0.0, max_tokens=30, tool_choice="none")
    events, done = collect(smol, [Message.user(PROMPTS[0])], TOOLS, settings)
    assert not any(isinstance(e, ToolCallEmitted | MalformedToolCall) for e in events)
    assert done.message.tool_calls == ()


def test_reasoning_is_split_from_the_answer_and_budgeted(test_gguf: Path) -> None:
    thinking_template = CHATML_TEMPLATE.replace(
        "'<|im_start|>assistant\n'", "'<|im_start|>assistant\n<think>\n'"
    )
    with LlamaCppModel(test_gguf, n_ctx=1024, chat_template=thinking_template) as model:
        settings = GenerationSettings(temperature=0.0, max_tokens=60, reasoning_budget=12)
        events, done = collect(model, [Message.user("Why is the sky blue?")], (), settings)
    kinds = [type(e) for e in events if isinstance(e, ReasoningDelta | AnswerDelta)]
    assert kinds and kinds[0] is ReasoningDelta
    assert AnswerDelta in kinds
    assert kinds.index(AnswerDelta) > max(i for i, k in enumerate(kinds) if k is ReasoningDelta)
    assert done.message.reasoning and done.message.content
    assert "think>" not in done.message.content
    assert len(model_tokens(test_gguf, done.message.reasoning)) <= 12 + 2


def model_tokens(path: Path, text: str) -> list[int]:
    with LlamaCppModel(path, n_ctx=256) as model:
        return model.tokenize(text)


class CountedToken(CancelToken):
    """A stop flag that counts how often it is read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    @property
    def cancelled(self) -> bool:
        self.reads += 1
        return super().cancelled


def test_llama_cpp_reads_the_stop_flag_without_calling_python(smol: LlamaCppModel) -> None:
    """ggml checks for a stop after every graph node, some 600 times a token: were that a
    Python call, decoding would wait for the GIL each time (the window's thread holds it)."""
    cancel = CountedToken()
    _, done = collect(smol, [Message.user("Tell me a story.")], (), GREEDY, cancel)
    assert done.stats.completion_tokens > 5
    assert cancel.reads <= done.stats.completion_tokens + 2


def test_stop_during_prefill_aborts_inside_decode_and_leaves_a_usable_cache(
    smol: LlamaCppModel,
) -> None:
    long_prompt = [Message.user("Summarise: " + "the quick brown fox jumps. " * 300)]
    cancel = CancelToken()
    events: list[EngineEvent] = []
    for event in smol.generate(long_prompt, (), GREEDY, cancel):
        events.append(event)
        if isinstance(event, PromptProgress) and event.read > 0:
            cancel.cancel()  # the next batch's decode reads the flag at its first node
    done = events[-1]
    assert isinstance(done, GenerationDone) and done.stop_reason == "cancelled"
    assert 0 < done.stats.evaluated_tokens < done.stats.prompt_tokens
    assert not any(isinstance(e, AnswerDelta) for e in events)
    _, again = collect(smol, [Message.user("Say hello.")])
    assert again.stop_reason in ("end", "max_tokens") and again.message.content


def test_stop_during_generation_is_honoured_within_a_token(smol: LlamaCppModel) -> None:
    cancel = CancelToken()
    seen = 0
    stream = smol.generate([Message.user("Count from one to fifty.")], (), GREEDY, cancel)
    for event in stream:
        if isinstance(event, AnswerDelta):
            seen += 1
            if seen == 3:
                cancel.cancel()
                tokens_at_stop = smol.cache.tokens[:]
        if isinstance(event, GenerationDone):
            done = event
    assert done.stop_reason == "cancelled"
    assert len(smol.cache.tokens) == len(tokens_at_stop)


def test_stop_inside_llama_cpp_at_any_point_ends_the_reply_cleanly(smol: LlamaCppModel) -> None:
    """Stops from another thread land wherever the reply is: in llama.cpp's decode of a token,
    or in Python between two; each ends the reply and leaves the model usable."""
    long_reply = GenerationSettings(temperature=0.0, max_tokens=2000)
    for delay_s in (0.0, 0.001, 0.003, 0.01, 0.03):
        cancel = CancelToken()
        timer = threading.Timer(delay_s, cancel.cancel)
        events = []
        for event in smol.generate([Message.user("Tell me a long story.")], (), long_reply, cancel):
            events.append(event)
            if isinstance(event, AnswerDelta) and not timer.is_alive() and not cancel.cancelled:
                timer.start()  # once the reply is being written
        timer.join()
        done = events[-1]
        assert isinstance(done, GenerationDone) and done.stop_reason == "cancelled", delay_s
        assert 0 < done.stats.completion_tokens < 2000
        _, after = collect(smol, [Message.user("What is 2+2?")])
        assert "4" in after.message.content


def test_each_turn_only_evaluates_what_it_appends(smol: LlamaCppModel) -> None:
    history = [Message.system("You are terse.")]
    previous_total = None
    for question in ("Name a fruit.", "Name a colour.", "Name an animal.", "Name a city."):
        history.append(Message.user(question))
        _, done = collect(smol, history)
        stats = done.stats
        if previous_total is not None:
            appended = stats.prompt_tokens - previous_total
            assert stats.reused_tokens >= previous_total - 2
            assert stats.evaluated_tokens <= appended + 2
        previous_total = stats.prompt_tokens + stats.completion_tokens
        history.append(done.message)


def test_checkpoints_serve_models_whose_memory_cannot_rewind(test_gguf: Path) -> None:
    turn_one = [Message.system("You are terse."), Message.user("Name a fruit.")]
    with LlamaCppModel(test_gguf, n_ctx=1024) as model:
        model.cache.rewindable = False  # take the hybrid-memory path on a real context
        _, first = collect(model, turn_one)
        _, history_end, _ = model.render(turn_one, (), GREEDY)
        edited = [*turn_one, Message.assistant("Durian, I think."), Message.user("A colour?")]
        _, restored = collect(model, edited)
        assert history_end is not None and 0 < history_end < first.stats.prompt_tokens
        assert restored.stats.reused_tokens == history_end
    with LlamaCppModel(test_gguf, n_ctx=1024) as fresh:
        _, expected = collect(fresh, edited)
    assert restored.message.content == expected.message.content


def test_a_conversation_longer_than_the_context_is_refused(smol: LlamaCppModel) -> None:
    with pytest.raises(ContextOverflow, match="context holds 4096"):
        collect(smol, [Message.user("word " * 5000)])


def test_a_truncated_gguf_is_a_clear_error(test_gguf: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    with test_gguf.open("rb") as source:
        broken.write_bytes(source.read(9 << 20))  # the header survives, the tensors do not
    with pytest.raises(ModelFileError) as error:
        LlamaCppModel(broken)
    assert "broken.gguf" in str(error.value)


def test_a_required_call_comes_even_when_the_model_ends_while_thinking(test_gguf: Path) -> None:
    thinking_template = CHATML_TEMPLATE.replace(
        "'<|im_start|>assistant\n'", "'<|im_start|>assistant\n<think>\n'"
    )
    stops = []
    with LlamaCppModel(test_gguf, n_ctx=1024, chat_template=thinking_template) as model:
        for seed in range(1, 9):
            settings = GenerationSettings(
                temperature=0.7,
                seed=seed,
                max_tokens=160,
                reasoning_budget=64,
                tool_choice="required",
            )
            events, done = collect(model, [Message.user(PROMPTS[0])], TOOLS, settings)
            called = any(isinstance(e, ToolCallEmitted | MalformedToolCall) for e in events)
            stops.append((seed, done.stop_reason, called))
    assert all(called for _, _, called in stops), stops


def test_closing_a_model_mid_reply_stops_the_reply_first(test_gguf: Path) -> None:
    model = LlamaCppModel(test_gguf, n_ctx=1024)
    settings = GenerationSettings(temperature=0.0, max_tokens=400)
    stream = model.generate([Message.user("Tell me a long story.")], (), settings)
    # Past the prompt's reading: the reply is now writing and holds the model.
    first = next(e for e in stream if not isinstance(e, PromptProgress))
    closer = threading.Thread(target=model.close)
    closer.start()
    rest = list(stream)
    closer.join(timeout=10)
    assert not closer.is_alive()
    done = rest[-1]
    assert isinstance(first, AnswerDelta | ReasoningDelta)
    assert isinstance(done, GenerationDone) and done.stop_reason == "cancelled"
    with pytest.raises(EngineError, match="unloaded"):
        list(model.generate([Message.user("hello")], (), settings))
    model.close()  # a second close is harmless


LOAD_WHILE_PRINTING = """
import sys, threading
from hearth.engine.llama import LlamaCppModel
done = threading.Event()
def load():
    LlamaCppModel(sys.argv[1], n_ctx=512).close()
    done.set()
threading.Thread(target=load).start()
printed = 0
while not done.wait(0.0005):
    print(f"line {printed}", file=sys.stderr)
    printed += 1
print(printed)
"""


def test_loading_a_model_never_silences_what_other_threads_print(test_gguf: Path) -> None:
    """The window prints while the model loads on a worker (a window-shown line, an error):
    none of it may vanish into /dev/null for the length of the load."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD_WHILE_PRINTING, str(test_gguf)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    printed = int(done.stdout.strip())
    assert printed > 20  # the load outlasted many lines, so a silenced stretch would show
    assert done.stderr.splitlines() == [f"line {n}" for n in range(printed)]
