"""A conversation with the agent: each turn is a generator of typed steps.

The model proposes; the executor (the only path to a tool) decides and runs, and only tools
offered for that step may run. Model mistakes — malformed calls, unknown or unoffered tools, bad
arguments, tool errors — are audited and go back to the model as observations; errors in Hearth
itself end the turn with `TurnFailed`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from importlib import resources
from typing import Literal

from hearth.agent.executor import Executor
from hearth.agent.offer import OfferPlanner, connector_of
from hearth.agent.steps import (
    DEFAULT_TIMEOUT_S,
    CallMalformed,
    Step,
    ToolRan,
    ToolsOffered,
    TurnDone,
    TurnFailed,
    TurnStats,
)
from hearth.consent import TaintTracker, fenced_source, unfence
from hearth.engine_settings import TOOL_BUDGET, saved_setting
from hearth.errors import HearthError, ToolCrashed
from hearth.generation import (
    AnswerDelta,
    ChatModel,
    GenerationDone,
    GenerationSettings,
    PromptProgress,
    ReasoningDelta,
)
from hearth.messages import CancelToken, Message, ToolCall
from hearth.shown_text import ShownStream
from hearth.tools import Tool

ToolChoice = Literal["auto", "required"]
CRASHED = "Error: this tool failed because of a problem inside Hearth. The user has been told."


def default_system_prompt() -> str:
    """The system prompt from resources/prompts/system.md, the same every day.

    With the tools after it, it is the prefix every conversation starts with, whose model
    state is computed once and kept; the moment goes with each request (`turn_context`).
    """
    prompt = resources.files("hearth.resources") / "prompts" / "system.md"
    return prompt.read_text("utf-8").strip()


def turn_context(now: datetime | None = None) -> str:
    """When the user speaks, as the model reads it before the request: day, time and zone."""
    moment = (now or datetime.now()).astimezone()
    zone = moment.tzname() or moment.strftime("%z")
    return f"(It is {moment:%A} {moment:%Y-%m-%d %H:%M}, {zone}.)"


def _saved_tool_budget() -> int:
    return saved_setting(TOOL_BUDGET)


@dataclass(frozen=True)
class AgentConfig:
    max_steps: int = 6
    # The most the tools a turn offers may add to the prompt, in (estimated) tokens.
    tool_budget: int = field(default_factory=_saved_tool_budget)
    repeat_limit: int = 3
    consent_timeout_s: float = DEFAULT_TIMEOUT_S
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    # The moment each request carries; a replay of a fixed day (an evaluation) sets its own.
    clock: Callable[[], datetime] = datetime.now


class Session:
    """One conversation: its history, and the turns that extend it."""

    def __init__(
        self,
        model: ChatModel,
        tools: Iterable[Tool],
        executor: Executor,
        *,
        conversation_id: int,
        history: Sequence[Message] = (),
        system_prompt: str | None = None,
        config: AgentConfig | None = None,
        on_message: Callable[[Message], None] | None = None,
        on_turn_done: Callable[[TurnDone], None] | None = None,
    ) -> None:
        self.model = model
        # Read again as each turn starts: a registry gains an MCP server's tools once it answers.
        self._tools = tools
        self.tools = list(tools)
        self.executor = executor
        self.conversation_id = conversation_id
        self.config = config or AgentConfig()
        self.history = list(history)
        restore_taint(executor.taint, self.history)
        prompt = system_prompt or default_system_prompt()
        if not self.history or self.history[0].role != "system":
            self.history.insert(0, Message.system(prompt))
        elif system_prompt is None and self.history[0].content.startswith(prompt):
            # A conversation saved when the prompt carried the date: today's prompt is the one
            # whose model state is kept.
            self.history[0] = Message.system(prompt)
        self._on_message = on_message
        self._on_turn_done = on_turn_done
        self._descriptions_read: set[str] = set()

    def run_turn(
        self, text: str, cancel: CancelToken | None = None, *, tool_choice: ToolChoice = "auto"
    ) -> Iterator[Step]:
        """Answer one user message, proposing and running tools as needed.

        `tool_choice="required"` makes the first step call a tool (the user picked one).
        """
        cancel = cancel or CancelToken()
        self.tools = list(self._tools)
        self.executor.taint.add_user_text(text)
        used = self._connectors_used()
        self._remember(Message.user(text, context=turn_context(self.config.clock())))
        try:
            for step in self._steps(text, used, cancel, tool_choice):
                if isinstance(step, TurnDone) and self._on_turn_done is not None:
                    self._on_turn_done(step)
                yield step
        except HearthError as error:
            yield TurnFailed(error)

    def _steps(
        self, text: str, used: list[str], cancel: CancelToken, tool_choice: ToolChoice
    ) -> Generator[Step, None, None]:
        stats = TurnStats()
        seen: Counter[str] = Counter()
        planner = OfferPlanner(self.tools, budget=self.config.tool_budget)
        offer = planner.plan(text, used=used)
        yield ToolsOffered(offer.connectors, offer.left_out)
        for step in range(self.config.max_steps):
            offered = offer.tools
            self._read_descriptions(offered)
            choice = tool_choice if step == 0 and offered else "auto"
            done = yield from self._generate(offered, cancel, choice)
            stats.tools_offered.append(len(offered))
            stats.prompt_tokens.append(done.stats.prompt_tokens)
            stats.evaluated_tokens.append(done.stats.evaluated_tokens)
            stats.completion_tokens.append(done.stats.completion_tokens)
            stats.decode_seconds.append(done.stats.decode_seconds)
            self._remember(done.message)
            calls, malformed = done.message.tool_calls, done.malformed_calls
            if done.stop_reason == "cancelled" or not (calls or malformed):
                yield TurnDone(done.message, done.stop_reason, stats)
                return
            repeated = self._repeated(calls, seen)
            if repeated is not None:
                yield self._give_up(f"the same call to {repeated} kept coming back", stats)
                return
            names = offer.names
            said: list[str] = []
            failed: list[str] = []
            for call in calls:
                try:
                    ran = yield from self.executor.handle(
                        call, self.conversation_id, cancel, offered=names
                    )
                except ToolCrashed:
                    # The history stays well-formed for the next turn; the details stay out.
                    self._remember(Message.tool_result(call, CRASHED))
                    raise
                self._remember(Message.tool_result(call, ran.observation))
                failing = ran.outcome in ("failed", "partial")
                (failed if failing else said).append(ran.result or ran.observation)
            for failure in malformed:
                yield CallMalformed(failure.raw, failure.reason)
                refused = self.executor.refuse_malformed(failure, self.conversation_id)
                self._remember(Message.tool_result(refused.call, refused.observation))
            if cancel.cancelled:
                yield TurnDone(done.message, "cancelled", stats)
                return
            grown = planner.grow(
                planner.grow(offer, "\n".join(said)), "\n".join(failed), failed=True
            )
            if grown is not offer:
                offer = grown
                yield ToolsOffered(offer.connectors, offer.left_out, added=offer.grown)
        yield self._give_up(f"the task took more than {self.config.max_steps} steps", stats)

    def _generate(
        self, offered: Sequence[Tool], cancel: CancelToken, tool_choice: ToolChoice
    ) -> Generator[Step, None, GenerationDone]:
        specs = [tool.spec() for tool in offered]
        settings = replace(self.config.settings, tool_choice=tool_choice)
        done: GenerationDone | None = None
        # What the model writes reaches every front end without Hearth's tags or the fence's
        # notice, which it sometimes echoes; its history keeps what it wrote.
        thought, said = ShownStream(), ShownStream()
        for event in self.model.generate(self.history, specs, settings, cancel):
            if isinstance(event, PromptProgress):
                yield event  # the front ends say how far the model has read
            elif isinstance(event, ReasoningDelta):
                yield from _shown(ReasoningDelta, thought.feed(event.text))
            elif isinstance(event, AnswerDelta):
                yield from _shown(ReasoningDelta, thought.finish())
                yield from _shown(AnswerDelta, said.feed(event.text))
            elif isinstance(event, GenerationDone):
                done = event
        yield from _shown(ReasoningDelta, thought.finish())
        yield from _shown(AnswerDelta, said.finish())
        if done is None:
            raise HearthError("the model stream ended without finishing its reply")
        return done

    def _connectors_used(self) -> list[str]:
        """The connectors whose tools earlier turns called, first used first."""
        owners = {tool.name: connector_of(tool) for tool in self.tools}
        called = (call.name for message in self.history for call in message.tool_calls)
        return list(dict.fromkeys(owners[name] for name in called if name in owners))

    def _read_descriptions(self, offered: Sequence[Tool]) -> None:
        """A description written outside (an MCP server's) is read by the model as soon as its
        tool is offered, so the rule of two counts it as read from then on."""
        for tool in offered:
            if tool.told_by and tool.name not in self._descriptions_read:
                self._descriptions_read.add(tool.name)
                self.executor.taint.add_untrusted(
                    f"{tool.description}\n{json.dumps(dict(tool.parameters), ensure_ascii=False)}",
                    f"the description of {tool.name}, written by {tool.told_by}",
                )

    def _repeated(self, calls: Sequence[ToolCall], seen: Counter[str]) -> str | None:
        for call in calls:
            key = f"{call.name} {json.dumps(call.arguments, sort_keys=True)}"
            seen[key] += 1
            if seen[key] >= self.config.repeat_limit:
                return call.name
        return None

    def _give_up(self, why: str, stats: TurnStats) -> TurnDone:
        message = Message.assistant(f"I stopped because {why}. Please rephrase or do it by hand.")
        self._remember(message)
        return TurnDone(message, "stopped", stats)

    def _remember(self, message: Message) -> None:
        self.history.append(message)
        if self._on_message is not None:
            self._on_message(message)


def _shown(
    kind: type[ReasoningDelta] | type[AnswerDelta], text: str
) -> Iterator[ReasoningDelta | AnswerDelta]:
    if text:
        yield kind(text)


def restore_taint(taint: TaintTracker, history: Sequence[Message]) -> None:
    """Give a reopened conversation the taint it had: what the user said, what tools returned.

    Tool output went into history fenced under the label naming the item it came from, so each
    item is restored under the same label; unfenced tool messages are Hearth's own words
    (a denial, an invalid call) and were never untrusted.
    """
    for message in history:
        if message.role == "user":
            taint.add_user_text(message.content)
        elif message.role == "tool":
            source = fenced_source(message.content)
            if source is not None:
                taint.add_untrusted(unfence(message.content), source)


__all__ = [
    "AgentConfig",
    "Session",
    "ToolRan",
    "default_system_prompt",
    "restore_taint",
    "turn_context",
]
