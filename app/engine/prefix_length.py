"""Where a prompt's fixed prefix ends: its system text and tools, up to the first request.

The chat template decides where the tools go, so only its output can say where they end: the
same head is rendered with two different requests, and the tokens the two share are the prefix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from hearth.engine.cache import common_prefix
from hearth.generation import GenerationSettings
from hearth.messages import Message, ToolSpec

#: Renders a conversation with these tools into prompt tokens, as the model would read them.
Render = Callable[[Sequence[Message], Sequence[ToolSpec], GenerationSettings], list[int]]


class PrefixLengths:
    """How many of a prompt's tokens are its fixed prefix, worked out once for each head."""

    def __init__(self, render: Render, *, supports_thinking: bool) -> None:
        self._render = render
        self._supports_thinking = supports_thinking
        self._probes: dict[tuple[str, str, bool], list[int]] = {}

    def of(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        settings: GenerationSettings,
        prompt: Sequence[int],
    ) -> int:
        """The prefix's length in `prompt`; 0 when the prompt does not start with it."""
        head = list(messages[:1]) if messages and messages[0].role == "system" else []
        key = (
            head[0].content if head else "",
            json.dumps([tool.as_openai() for tool in tools], sort_keys=True),
            settings.enable_thinking and self._supports_thinking,
        )
        probe = self._probes.get(key)
        if probe is None:
            first = self._render([*head, Message.user("A")], tools, settings)
            second = self._render([*head, Message.user("B")], tools, settings)
            probe = self._probes[key] = first[: common_prefix(first, second)]
        length = len(probe)
        return length if 0 < length < len(prompt) and list(prompt[:length]) == probe else 0
