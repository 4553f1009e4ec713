"""`hearth.Session`: run Hearth's agent from a Python script, consent answered by your code.

Every proposed call that the rules do not settle goes to `approve(proposal)`, which returns
True to run it once or False to refuse it; there is no default, so a script can never run a
tool nobody decided on. Rules the user made in the app (and `allow(...)`) apply as in the app,
and so does the rule of two: after the turn read untrusted text, side effects ask again.

    from hearth import Session

    def approve(proposal):
        return proposal.effect == "read"

    with Session("smollm2-135m", approve=approve) as hearth:
        turn = hearth.ask("What is in my notes folder?")
        print(turn.answer)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from hearth.agent import AgentConfig, AllowOnce, ConsentAsked, Deny
from hearth.agent.records import TurnRecord
from hearth.agent.steps import ConsentRequest
from hearth.assistant import Assistant
from hearth.consent import Rule
from hearth.generation import ChatModel, GenerationSettings
from hearth.messages import CancelToken


@dataclass(frozen=True)
class Proposal:
    """A call waiting for your decision: what it would do, and why Hearth asks."""

    tool: str
    arguments: Mapping[str, Any]
    effect: str
    preview: str | None
    reason: str
    untrusted: tuple[str, ...]  # "recipient 'x@y' came from email 'Invoice'": where args came from

    @classmethod
    def of(cls, request: ConsentRequest) -> Proposal:
        return cls(
            tool=request.call.name,
            arguments=dict(request.call.arguments),
            effect=request.tool.effect,
            preview=request.preview,
            reason=request.reason,
            untrusted=tuple(line.sentence for line in request.taint),
        )


Approver = Callable[[Proposal], bool]


@dataclass(frozen=True)
class Turn:
    """What one `Session.ask` did: the answer, the reasoning and every tool call as a record."""

    answer: str
    reasoning: str
    calls: list[dict[str, Any]]
    stop_reason: str
    error: str = ""
    stats: Mapping[str, Any] = field(default_factory=dict)  # model calls, tokens per call


class Session:
    """One conversation with Hearth's real agent, tools and consent gate, driven by a script.

    `model` is a loaded `ChatModel` (from `load_model`; it stays yours to close), a catalog
    id, a path to a .gguf file or the address of an OpenAI-compatible server. Plugins load as in
    the app (set HEARTH_DISABLE_PLUGINS=1 for built-ins only); `plugins` adds plugin objects
    (with `@hookimpl` methods) and `entry_points=False` leaves out the installed ones; `clock`
    gives the moment each request carries (a replay of a fixed day sets it). Use it in
    a `with` block, or call `close()`, which also stops the connectors' background work.
    """

    def __init__(
        self,
        model: ChatModel | str | os.PathLike[str],
        *,
        approve: Approver,
        max_tokens: int = 1024,
        think: bool = True,
        n_ctx: int = 8192,
        assistant: Assistant | None = None,
        plugins: Iterable[object] = (),
        entry_points: bool = True,
        clock: Callable[[], datetime] = datetime.now,
    ) -> None:
        if not callable(approve):
            raise TypeError("approve must be a function taking a Proposal and returning a bool")
        self._approve = approve
        self._owns_model = isinstance(model, str | os.PathLike)
        self.assistant = assistant or Assistant.open(plugins=plugins, entry_points=entry_points)
        try:
            self.assistant.use_model(load_model(model, n_ctx=n_ctx))
            settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
            self._session = self.assistant.session(
                title="Script", config=AgentConfig(settings=settings, clock=clock)
            )
        except BaseException:
            self.close()
            raise

    def ask(self, text: str, *, tool: Literal["auto", "required"] = "auto") -> Turn:
        """Run one turn; `tool="required"` makes the model call a tool first."""
        record = TurnRecord()
        for step in self._session.run_turn(text, CancelToken(), tool_choice=tool):
            if isinstance(step, ConsentAsked):
                step.request.answer(self._answer(step.request))
            record.add(step)
        data = record.as_dict()
        return Turn(
            data["answer"],
            data["reasoning"],
            record.calls,
            record.stop_reason,
            record.error,
            dict(record.stats),
        )

    def allow(self, tool: str, scope: str | None = None) -> None:
        """Allow `tool` (optionally only on `scope`) without asking, for this conversation."""
        conversation = str(self._session.conversation_id)
        self.assistant.allow(
            Rule.create(
                tool,
                "allow",
                now=time.time(),
                scope=scope,
                duration="conversation",
                conversation_id=conversation,
            )
        )

    def close(self) -> None:
        if not self._owns_model:
            self.assistant.model = None  # the caller's model: theirs to reuse and to close
        self.assistant.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _answer(self, request: ConsentRequest) -> AllowOnce | Deny:
        try:
            allowed = self._approve(Proposal.of(request))
        except Exception as error:
            return Deny(f"the script's approver failed: {type(error).__name__}: {error}")
        if allowed is True:
            return AllowOnce()
        return Deny("the script's approver said no")


def load_model(
    model: ChatModel | str | os.PathLike[str] | None = None, *, n_ctx: int = 8192
) -> ChatModel:
    """A chat model from a catalog id, a .gguf path or a server's address (http:// or
    https://), or the best one installed for None; loaded once so several `Session`s can
    share it. Close it when done."""
    if model is None:
        return _local(None, n_ctx)
    if not isinstance(model, str | os.PathLike):
        return model
    spec = os.fspath(model)
    if isinstance(model, str) and spec.startswith(("http://", "https://")):
        from hearth.models.loading import open_remote_model

        return open_remote_model(spec)
    return _local(spec, n_ctx)


def _local(spec: str | None, n_ctx: int) -> ChatModel:
    from hearth.models.loading import load_chat_model
    from hearth.models.lookup import resolve_model
    from hearth.models.threads_setting import thread_policy

    path: Path = resolve_model(spec)
    return load_chat_model(path, n_ctx, thread_policy())
