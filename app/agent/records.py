"""A turn as plain records for scripts and pipelines: `hearth ask --json` and `hearth.Session`.

Streaming deltas are gathered into the reasoning and the answer; every tool call becomes one
record holding what the model proposed, who decided and why, what ran and what came back. The
text the model wrote and what came back are passed through `shown`, as the terminal shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hearth.agent.steps import (
    CallMalformed,
    ConsentAsked,
    Step,
    ToolProposed,
    ToolRan,
    ToolsOffered,
    TurnDone,
    TurnFailed,
)
from hearth.display import shown
from hearth.generation import AnswerDelta, ReasoningDelta


@dataclass
class TurnRecord:
    """One turn: the answer, the reasoning, each call as a record, and how the turn ended."""

    answer: str = ""
    reasoning: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = ""
    error: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    offered: list[str] = field(default_factory=list)
    _previews: dict[str, str | None] = field(default_factory=dict, repr=False)
    _asked: set[str] = field(default_factory=set, repr=False)

    def add(self, step: Step) -> dict[str, Any] | None:
        """Take in one step; returns the record it completes (a call, the end), if any."""
        if isinstance(step, ToolsOffered):
            self.offered = list(step.connectors)
        elif isinstance(step, ReasoningDelta):
            self.reasoning += step.text
        elif isinstance(step, AnswerDelta):
            self.answer += step.text
        elif isinstance(step, ToolProposed):
            self._previews[step.call.id] = step.preview
        elif isinstance(step, ConsentAsked):
            self._asked.add(step.request.call.id)
        elif isinstance(step, CallMalformed):
            return self._call({"type": "malformed_call", "reason": step.reason})
        elif isinstance(step, ToolRan):
            return self._call(self._ran(step))
        elif isinstance(step, TurnDone):
            return self._end(step)
        elif isinstance(step, TurnFailed):
            self.error = str(step.error)
            return {"type": "failed", "error": self.error}
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "answer": shown(self.answer, lines=True).strip(),
            "reasoning": shown(self.reasoning, lines=True).strip(),
            "calls": self.calls,
            "offered": [shown(name) for name in self.offered],
            "stop_reason": self.stop_reason,
            **({"error": self.error} if self.error else {}),
            "stats": self.stats,
        }

    def _call(self, record: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(record)
        return record

    def _ran(self, ran: ToolRan) -> dict[str, Any]:
        ruling = ran.ruling
        return {
            "type": "tool_call",
            "id": ran.call.id,
            "tool": ran.call.name,
            "proposed": ran.call.arguments,
            "arguments": ran.arguments,
            "preview": self._previews.get(ran.call.id),
            "asked": ran.call.id in self._asked,
            "decision": {
                "allowed": ruling.allowed,
                "by": ruling.decider.value,
                "reason": ruling.sentence() or ruling.wording,
                **({"rule": ruling.rule_text} if ruling.rule_text else {}),
            },
            "outcome": ran.outcome,
            "result": shown(ran.result),
            "undoable": ran.undoable,
            "duration_ms": round(ran.duration_ms, 1),
        }

    def _end(self, done: TurnDone) -> dict[str, Any]:
        stats = done.stats
        self.stop_reason = done.stop_reason
        self.stats = {
            "model_calls": stats.steps,
            "prompt_tokens": stats.prompt_tokens,
            "completion_tokens": sum(stats.completion_tokens),
            "tokens_per_second": round(stats.tokens_per_second, 2),
        }
        return {"type": "done", **self.as_dict()}
