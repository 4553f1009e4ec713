"""Tool-call formats: how calls look in model output, and how history is shown to the template.

- `qwen-xml` (Qwen3.5, BotPsy): `<tool_call><function=NAME><parameter=P>value</parameter>...`
- `hermes-json` (Qwen2.5/3): `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
- `generic-json`: any chat model whose template knows no tools; the tools go into the system
  prompt and calls use the hermes-json form.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from hearth.engine import grammar
from hearth.engine.calls import MalformedCallError, check_call
from hearth.engine.grammar import CLOSE_TAG, OPEN_TAG
from hearth.messages import Message, ToolCall, ToolSpec


class ToolFormat(ABC):
    """One way of writing tool calls; parses finished calls and builds their grammar."""

    name: ClassVar[str]

    @abstractmethod
    def parse(self, body: str, tools: Sequence[ToolSpec]) -> ToolCall:
        """Parse the text between the tool-call tags; raise MalformedCallError if it is wrong."""

    @abstractmethod
    def grammar(self, tools: Sequence[ToolSpec]) -> str:
        """GBNF for everything after the opening tag, up to and including the closing tag."""

    def prepare(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        """Messages and tools in the shape this format's templates expect."""
        template_tools = [tool.as_openai() for tool in tools] or None
        return [message.as_template_dict() for message in messages], template_tools

    def __repr__(self) -> str:
        return f"<ToolFormat {self.name}>"


class QwenXmlFormat(ToolFormat):
    name = "qwen-xml"
    _function = re.compile(r"^\s*<function=([^>\n]+)>(.*)</function>\s*$", re.DOTALL)
    _parameter = re.compile(r"<parameter=([^>\n]+)>\n?(.*?)\n?</parameter>", re.DOTALL)

    def parse(self, body: str, tools: Sequence[ToolSpec]) -> ToolCall:
        match = self._function.match(body)
        if match is None:
            raise MalformedCallError("expected <function=NAME>...</function> inside <tool_call>")
        name, inner = match.group(1).strip(), match.group(2)
        leftover = self._parameter.sub("", inner).strip()
        if leftover:
            raise MalformedCallError(f"unexpected text in call to {name!r}: {leftover[:80]!r}")
        schema = next((t.parameters for t in tools if t.name == name), {})
        properties = schema.get("properties", {})
        arguments = {
            key.strip(): _coerce_xml_value(value, properties.get(key.strip(), {}))
            for key, value in self._parameter.findall(inner)
        }
        return check_call(name, arguments, tools)

    def grammar(self, tools: Sequence[ToolSpec]) -> str:
        return grammar.qwen_xml_grammar(tools)


class HermesJsonFormat(ToolFormat):
    name = "hermes-json"

    def parse(self, body: str, tools: Sequence[ToolSpec]) -> ToolCall:
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise MalformedCallError(f"tool call is not valid JSON: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise MalformedCallError('tool call must be an object with a string "name"')
        arguments = data.get("arguments", data.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as exc:
                raise MalformedCallError(f"arguments are not valid JSON: {exc}") from exc
        return check_call(data["name"], arguments, tools)

    def grammar(self, tools: Sequence[ToolSpec]) -> str:
        return grammar.hermes_json_grammar(tools)


class GenericJsonFormat(HermesJsonFormat):
    """Hermes-style calls for templates without tool support: everything is plain messages."""

    name = "generic-json"

    def prepare(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        converted = [_plain_message(message) for message in messages]
        if tools:
            instructions = _generic_prompt().replace(
                "{tools}", "\n".join(json.dumps(t.as_openai(), ensure_ascii=False) for t in tools)
            )
            if converted and converted[0]["role"] == "system":
                converted[0]["content"] = f"{converted[0]['content']}\n\n{instructions}"
            else:
                converted.insert(0, {"role": "system", "content": instructions})
        return converted, None


def _plain_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "user", "content": f"<tool_response>\n{message.content}\n</tool_response>"}
    content = message.model_text
    for call in message.tool_calls:
        payload = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
        content = f"{content}\n{OPEN_TAG}\n{payload}\n{CLOSE_TAG}".lstrip("\n")
    return {"role": message.role, "content": content}


def _coerce_xml_value(raw: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "string" or (kind is None and "enum" not in schema):
        return raw
    text = raw.strip()
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return raw


@cache
def _generic_prompt() -> str:
    return (resources.files("hearth.resources") / "prompts" / "generic_tools.md").read_text("utf-8")


FORMATS: dict[str, ToolFormat] = {
    fmt.name: fmt for fmt in (QwenXmlFormat(), HermesJsonFormat(), GenericJsonFormat())
}


def detect_tool_format(template: str | None) -> ToolFormat:
    """Pick the format a chat template was trained with; unknown templates get generic-json."""
    if template and "<function=" in template and "<parameter=" in template:
        return FORMATS["qwen-xml"]
    if template and OPEN_TAG in template and "tools" in template:
        return FORMATS["hermes-json"]
    return FORMATS["generic-json"]
