"""The Qwen3.5 (BotPsy) path: its template, its XML tool calls and their grammar.

No Qwen3.5 GGUF can be fetched here, so the real SmolLM2 model is driven through Qwen3.5's
published chat template: the same rendering, thinking, grammar and parsing code runs.
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path

import llama_cpp
import pytest

from hearth.engine.formats import FORMATS
from hearth.engine.llama import LlamaCppModel
from hearth.engine.template import ChatTemplate
from hearth.generation import (
    GenerationDone,
    GenerationSettings,
    MalformedToolCall,
    PromptProgress,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import Message, ToolCall
from tests.app.engine.test_llama import TOOLS

pytestmark = pytest.mark.model
TEMPLATES = Path(__file__).parents[2] / "fixtures" / "templates"
QWEN35 = (TEMPLATES / "Qwen3.5-4B.jinja").read_text()
HERMES = (TEMPLATES / "Qwen-Qwen3-0.6B.jinja").read_text()


def grammar_accepts(model: LlamaCppModel, grammar: str, text: str, *, finish: bool = True) -> bool:
    """Feed `text` token by token through llama.cpp's grammar sampler; True if all of it fits.

    With `finish`, the grammar must also be complete at the end of `text`.
    """
    sampler = llama_cpp.llama_sampler_init_grammar(model.vocab, grammar.encode(), b"root")
    assert sampler, "grammar did not compile"
    try:
        end = [llama_cpp.llama_vocab_eos(model.vocab)] if finish else []
        for token in [*model.tokenize(text), *end]:
            candidate = llama_cpp.llama_token_data(id=token, logit=0.0, p=0.0)
            array = llama_cpp.llama_token_data_array(
                data=ctypes.pointer(candidate), size=1, selected=-1, sorted=False
            )
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
            if math.isinf(candidate.logit):
                return False
            llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


@pytest.mark.parametrize(("template", "name"), [(QWEN35, "qwen-xml"), (HERMES, "hermes-json")])
def test_grammar_accepts_the_calls_the_template_writes(
    smol: LlamaCppModel, template: str, name: str
) -> None:
    calls = [
        ToolCall("get_weather", {"city": "São Paulo", "unit": "celsius"}),
        ToolCall("set_volume", {"level": 35}),
        ToolCall("create_note", {"title": "1 < 2 <", "body": "<<b>bold? <"}),
        ToolCall("create_note", {"title": "Plan", "body": "line one\nline two", "pinned": True}),
    ]
    chat = ChatTemplate.from_source(template)
    assert chat.tool_format.name == name
    grammar = chat.tool_format.grammar(TOOLS)
    for call in calls:
        text = chat.render([Message.user("x"), Message.assistant(tool_calls=[call])], TOOLS)
        body = text.split("<tool_call>")[-1].split("<|im_end|>")[0]
        assert grammar_accepts(smol, grammar, body), body
        parsed = FORMATS[name].parse(body.removesuffix("</tool_call>").strip("\n"), TOOLS)
        assert (parsed.name, parsed.arguments) == (call.name, call.arguments)


def test_grammar_rejects_calls_outside_the_schemas(smol: LlamaCppModel) -> None:
    grammar = FORMATS["qwen-xml"].grammar(TOOLS)
    unknown_tool = "\n<function=reboot>\n</function>\n</tool_call>"
    out_of_range = (
        "\n<function=set_volume>\n<parameter=level>\n500\n</parameter>\n</function>\n</tool_call>"
    )
    missing_required = "\n<function=get_weather>\n</function>\n</tool_call>"
    for text in (unknown_tool, out_of_range, missing_required):
        assert not grammar_accepts(smol, grammar, text), text


NOTE_CALL = '{"name": "create_note", "arguments": {"title": "a", "body": '


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # a string may not hold the closing tag: the parser would end the call inside it
        ("hermes-json", NOTE_CALL + '"b</tool_call>'),
        # nor a raw line break, which JSON forbids
        ("hermes-json", NOTE_CALL + '"b\n"}}'),
        ("qwen-xml", "\n<function=create_note>\n<parameter=title>\nx<</tool_call>"),
    ],
)
def test_grammar_keeps_the_closing_tag_and_control_characters_out_of_values(
    smol: LlamaCppModel, name: str, text: str
) -> None:
    assert not grammar_accepts(smol, FORMATS[name].grammar(TOOLS), text, finish=False), text


def test_qwen35_template_drives_thinking_and_xml_calls_on_a_real_model(test_gguf: Path) -> None:
    settings = GenerationSettings(
        max_tokens=200, tool_choice="required", reasoning_budget=24, seed=3
    )
    with LlamaCppModel(test_gguf, n_ctx=4096, chat_template=QWEN35) as model:
        assert model.info.tool_format == "qwen-xml"
        history = [Message.user("Set the volume to 30 percent.")]
        events = list(model.generate(history, TOOLS, settings))
        done = events[-1]
        assert isinstance(done, GenerationDone)
        written = [e for e in events if not isinstance(e, PromptProgress)]
        assert isinstance(written[0], ReasoningDelta)
        assert not [e for e in events if isinstance(e, MalformedToolCall)]
        calls = [e.call for e in events if isinstance(e, ToolCallEmitted)]
        assert len(calls) == 1 and done.message.tool_calls == tuple(calls)
        assert done.stop_reason == "tool_calls"

        history += [done.message, Message.tool_result(calls[0], "ok")]
        follow_up = GenerationSettings(max_tokens=30, reasoning_budget=8, seed=3)
        second = list(model.generate(history, TOOLS, follow_up))[-1]
        assert isinstance(second, GenerationDone)
        # the reply so far stays in memory: only the tool response and new prompt are read
        assert second.stats.reused_tokens >= done.stats.prompt_tokens
        assert second.stats.evaluated_tokens < second.stats.prompt_tokens - done.stats.prompt_tokens
