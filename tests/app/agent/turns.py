"""Connector tests through the whole agent: one scripted turn per call, real gate and store."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hearth.agent import AgentConfig, AllowOnce, ConsentAsked, ToolRan
from hearth.assistant import Assistant
from hearth.consent import Rule
from hearth.messages import CancelToken
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel

Turn = Callable[..., tuple[Assistant, list[Any]]]


@contextmanager
def scripted_turns(plugin: object) -> Iterator[Turn]:
    """`turn(ask, *calls, answer=, rules=, after=)`: the scripted model makes `calls`, one per
    step, then says "Done."; `answer` answers each card (Allow once by default) and `rules` are
    `(tool, scope)` allow rules granted first (made "even after untrusted content" with
    `after`). Every assistant opened is closed at the end."""
    opened: list[Assistant] = []

    def run(
        ask: str,
        *calls: tuple[str, dict[str, Any]],
        answer: Callable[[ConsentAsked], Any] | None = None,
        rules: tuple[tuple[str, str | None], ...] = (),
        after: bool = False,
    ) -> tuple[Assistant, list[Any]]:
        replies = [Reply(calls=[call]) for call in calls] + [Reply(text="Done.")]
        assistant = Assistant.open(
            ScriptedModel(replies), plugins=[plugin], entry_points=False, start_connectors=False
        )
        opened.append(assistant)
        for tool, scope in rules:
            rule = Rule.create(tool, "allow", now=time.time(), scope=scope, after_untrusted=after)
            assistant.allow(rule)
        session = assistant.session(config=AgentConfig(tool_budget=100_000))
        steps = drive(session.run_turn(ask, CancelToken()), answer or (lambda _: AllowOnce()))
        return assistant, steps

    try:
        yield run
    finally:
        for assistant in opened:
            assistant.db.close()


def results(steps: list[Any]) -> list[dict[str, Any]]:
    """The JSON of every call that ran, in order."""
    return [json.loads(ran.result) for ran in of(steps, ToolRan) if ran.outcome == "executed"]
