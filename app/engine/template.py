"""Render prompts with the model's own Jinja chat template, as Hugging Face does."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from hearth.engine.formats import ToolFormat, detect_tool_format
from hearth.errors import EngineError
from hearth.messages import Message, ToolSpec

# Used when a GGUF carries no template; llama.cpp falls back to ChatML the same way.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


@dataclass(frozen=True)
class ChatTemplate:
    """A model's chat template plus the tool-call format it implies."""

    source: str
    bos_token: str = ""
    eos_token: str = ""
    is_fallback: bool = False
    tool_format: ToolFormat = field(init=False)

    def __post_init__(self) -> None:
        source = None if self.is_fallback else self.source
        object.__setattr__(self, "tool_format", detect_tool_format(source))

    @classmethod
    def from_source(
        cls, source: str | None, *, bos_token: str = "", eos_token: str = ""
    ) -> ChatTemplate:
        if not source or not source.strip():
            return cls(CHATML_TEMPLATE, bos_token, eos_token, is_fallback=True)
        return cls(source, bos_token, eos_token)

    @cached_property
    def _compiled(self) -> jinja2.Template:
        try:
            return _environment().from_string(self.source)
        except jinja2.TemplateError as exc:
            raise EngineError(f"the model's chat template does not compile: {exc}") from exc

    @property
    def supports_thinking(self) -> bool:
        return "<think>" in self.source

    def render(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        add_generation_prompt: bool = True,
        enable_thinking: bool = True,
    ) -> str:
        """Render a conversation; tools are passed natively or folded in by the tool format."""
        dicts, template_tools = self.tool_format.prepare(messages, tools)
        return self._render_dicts(dicts, template_tools, add_generation_prompt, enable_thinking)

    def _render_dicts(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        add_generation_prompt: bool,
        enable_thinking: bool,
    ) -> str:
        context: Mapping[str, Any] = {
            "messages": messages,
            "tools": tools,
            "add_generation_prompt": add_generation_prompt,
            "enable_thinking": enable_thinking,
            "bos_token": self.bos_token,
            "eos_token": self.eos_token,
        }
        try:
            return self._compiled.render(**context)
        except jinja2.TemplateError as exc:
            raise EngineError(
                f"the model's chat template rejected the conversation: {exc}"
            ) from exc
