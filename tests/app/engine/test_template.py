from __future__ import annotations

from pathlib import Path

import pytest

from hearth.engine.template import ChatTemplate
from hearth.errors import EngineError
from hearth.messages import Message, ToolCall, ToolSpec

TEMPLATES = Path(__file__).parents[2] / "fixtures" / "templates"
WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def load(name: str) -> ChatTemplate:
    return ChatTemplate.from_source((TEMPLATES / name).read_text())


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Qwen3.5-4B.jinja", "qwen-xml"),
        ("Qwen-Qwen3-0.6B.jinja", "hermes-json"),
        ("Qwen-Qwen2.5-7B-Instruct.jinja", "hermes-json"),
    ],
)
def test_tool_format_is_detected_from_the_template(name: str, expected: str) -> None:
    assert load(name).tool_format.name == expected


def test_missing_template_falls_back_to_chatml_with_generic_tools() -> None:
    template = ChatTemplate.from_source(None)
    assert template.is_fallback
    assert template.tool_format.name == "generic-json"
    text = template.render([Message.user("hi")], [WEATHER])
    assert text.startswith("<|im_start|>system\n")
    assert '"get_weather"' in text
    assert text.endswith("<|im_start|>assistant\n")


def test_qwen35_renders_tools_thinking_and_history_in_its_own_format() -> None:
    template = load("Qwen3.5-4B.jinja")
    call = ToolCall("get_weather", {"city": "Oslo"}, id="call_1")
    messages = [
        Message.system("Be brief."),
        Message.user("Weather in Oslo?"),
        Message.assistant("", reasoning="Need the tool.", tool_calls=[call]),
        Message.tool_result(call, "4°C, rain"),
    ]
    text = template.render(messages, [WEATHER])
    assert '"name": "get_weather"' in text
    assert "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>" in text
    assert "<tool_response>\n4°C, rain\n</tool_response>" in text
    assert "<think>\nNeed the tool.\n</think>" in text  # reasoning kept within the same turn
    assert text.endswith("<|im_start|>assistant\n<think>\n")
    quiet = template.render(messages[:2], [WEATHER], enable_thinking=False)
    assert quiet.endswith("<think>\n\n</think>\n\n")


def test_qwen35_drops_reasoning_of_earlier_turns() -> None:
    template = load("Qwen3.5-4B.jinja")
    messages = [
        Message.user("Hi"),
        Message.assistant("Hello!", reasoning="Greet back."),
        Message.user("Bye"),
    ]
    text = template.render(messages)
    assert "Greet back." not in text
    assert "<|im_start|>assistant\nHello!<|im_end|>" in text


def test_generic_format_folds_tool_history_into_plain_messages() -> None:
    template = ChatTemplate.from_source(None)
    call = ToolCall("get_weather", {"city": "Oslo"})
    text = template.render(
        [
            Message.user("Weather?"),
            Message.assistant(tool_calls=[call]),
            Message.tool_result(call, "sunny"),
        ],
        [WEATHER],
    )
    assert (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' in text
    )
    assert "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>" in text
    assert "<|im_start|>tool" not in text


def test_template_errors_become_engine_errors() -> None:
    template = load("Qwen3.5-4B.jinja")
    with pytest.raises(EngineError, match="rejected the conversation"):
        template.render([Message.system("only a system message")])
    with pytest.raises(EngineError, match="does not compile"):
        ChatTemplate.from_source("{% for %}").render([Message.user("x")])
