from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

from hearth.engine.formats import FORMATS
from hearth.engine.stream import OutputParser
from hearth.generation import (
    AnswerDelta,
    EngineEvent,
    MalformedToolCall,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import ToolSpec

TOOLS = [
    ToolSpec(
        "set_volume",
        "Set the output volume.",
        {
            "type": "object",
            "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 100}},
            "required": ["level"],
        },
    ),
    ToolSpec(
        "send_note",
        "Send a note.",
        {
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
            "required": ["to", "body"],
        },
    ),
]


def run(parser: OutputParser, chunks: Iterable[str]) -> list[EngineEvent]:
    events: list[EngineEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.finish()


def text_of(events: list[EngineEvent], kind: type) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))


def one_char_at_a_time(text: str) -> list[str]:
    return list(text)


@pytest.mark.parametrize("split", [lambda t: [t], one_char_at_a_time])
def test_reasoning_and_answer_are_split_without_leaking_tags(split) -> None:  # type: ignore[no-untyped-def]
    parser = OutputParser(FORMATS["qwen-xml"], TOOLS, start_in_reasoning=True)
    events = run(parser, split("\nLet me think.\n</think>\n\nThe answer is 4."))
    assert text_of(events, ReasoningDelta) == "Let me think.\n"
    assert text_of(events, AnswerDelta) == "The answer is 4."
    assert "<" not in text_of(events, AnswerDelta)


def test_think_tag_opened_by_the_model_itself() -> None:
    parser = OutputParser(FORMATS["hermes-json"], TOOLS, start_in_reasoning=False)
    events = run(parser, ["<th", "ink>hmm</th", "ink>ok"])
    assert text_of(events, ReasoningDelta) == "hmm"
    assert text_of(events, AnswerDelta) == "ok"


def test_text_that_only_looks_like_a_tag_is_released() -> None:
    parser = OutputParser(FORMATS["hermes-json"], TOOLS, start_in_reasoning=False)
    events = run(parser, ["a <tool", "box> b <"])
    assert text_of(events, AnswerDelta) == "a <toolbox> b <"


@pytest.mark.parametrize("split", [lambda t: [t], one_char_at_a_time])
def test_qwen_xml_call_is_parsed_and_typed(split) -> None:  # type: ignore[no-untyped-def]
    body = (
        "Sure.\n\n<tool_call>\n<function=send_note>\n<parameter=to>\nana@example.org\n"
        "</parameter>\n<parameter=body>\nline one\nline two\n</parameter>\n</function>\n"
        "</tool_call>\n<tool_call>\n<function=set_volume>\n<parameter=level>\n30\n"
        "</parameter>\n</function>\n</tool_call>"
    )
    parser = OutputParser(FORMATS["qwen-xml"], TOOLS, start_in_reasoning=False)
    events = run(parser, split(body))
    calls = [e.call for e in events if isinstance(e, ToolCallEmitted)]
    assert [(c.name, c.arguments) for c in calls] == [
        ("send_note", {"to": "ana@example.org", "body": "line one\nline two"}),
        ("set_volume", {"level": 30}),
    ]
    assert parser.answer.strip() == "Sure."


def test_hermes_json_call_is_parsed() -> None:
    parser = OutputParser(FORMATS["hermes-json"], TOOLS, start_in_reasoning=False)
    events = run(
        parser, ['<tool_call>\n{"name": "set_volume", "arguments": {"level": 5}}\n</tool_call>']
    )
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEmitted)] == [{"level": 5}]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ('{"name": "reboot", "arguments": {}}', "unknown tool 'reboot'"),
        ('{"name": "set_volume", "arguments": [500]}', "must be an object"),
        ('{"name": "set_volume", "arguments": {"level": ', "not valid JSON"),
    ],
)
def test_bad_calls_are_reported_never_dropped(body: str, reason: str) -> None:
    parser = OutputParser(FORMATS["hermes-json"], TOOLS, start_in_reasoning=False)
    events = run(parser, [f"<tool_call>{body}</tool_call>"])
    malformed = [e for e in events if isinstance(e, MalformedToolCall)]
    assert len(malformed) == 1 and reason in malformed[0].reason
    assert not parser.calls


@pytest.mark.parametrize("arguments", [{"level": 500}, {}, {"level": "loud"}])
def test_arguments_outside_the_schema_reach_the_tool_to_be_fixed(arguments: dict) -> None:
    # The tool owns its arguments: a value it cannot use becomes a card to fix, not a notice.
    parser = OutputParser(FORMATS["hermes-json"], TOOLS, start_in_reasoning=False)
    body = json.dumps({"name": "set_volume", "arguments": arguments})
    events = run(parser, [f"<tool_call>{body}</tool_call>"])
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEmitted)] == [arguments]
    assert not [e for e in events if isinstance(e, MalformedToolCall)]


def test_unfinished_call_is_reported_at_the_end() -> None:
    parser = OutputParser(FORMATS["qwen-xml"], TOOLS, start_in_reasoning=False)
    events = run(parser, ["<tool_call>\n<function=set_volume>\n<parameter=level>\n3"])
    assert [e.reason for e in events if isinstance(e, MalformedToolCall)] == [
        "the tool call was not finished"
    ]


def test_complete_call_missing_only_its_closing_tag_still_counts() -> None:
    parser = OutputParser(FORMATS["hermes-json"], TOOLS, start_in_reasoning=False)
    events = run(parser, ['<tool_call>\n{"name": "set_volume", "arguments": {"level": 9}}\n'])
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEmitted)] == [{"level": 9}]
