"""The only path from a proposed call to a tool's implementation.

For each call: validate the arguments, ask the consent gate, ask the user when the gate says
so, write the decision to the audit log, record a side-effect intent, run, record the outcome.
The model reads what happened as an observation; untrusted results come back fenced.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from hearth.agent.steps import (
    AllowFor,
    AllowOnce,
    Answer,
    ConsentAsked,
    ConsentRequest,
    Deny,
    EditArguments,
    Step,
    ToolProposed,
    ToolRan,
)
from hearth.consent import ConsentGate, TaintTracker, Verdict
from hearth.engine.types import CancelToken, ToolCall
from hearth.store import AuditLog, IntentLog, UndoLog
from hearth.tools import Tool, ToolArgumentsError, ToolRegistry

RESULT_LIMIT = 4000
HEADLESS = "no one is here to approve it (headless run); allow it explicitly with --allow"


@dataclass(frozen=True)
class _Decision:
    run: bool
    arguments: dict[str, Any] | None
    decided_by: str
    reason: str


class Executor:
    """Runs proposed calls for one conversation, through the gate, on the record."""

    def __init__(
        self,
        tools: ToolRegistry,
        gate: ConsentGate,
        audit: AuditLog,
        intents: IntentLog,
        *,
        taint: TaintTracker | None = None,
        interactive: bool = True,
        consent_timeout: float = 300.0,
        undo_log: UndoLog | None = None,
    ) -> None:
        self.tools = tools
        self.gate = gate
        self.audit = audit
        self.intents = intents
        self.taint = taint or TaintTracker()
        self.interactive = interactive
        self.consent_timeout = consent_timeout
        self.undo_log = undo_log

    def handle(
        self, call: ToolCall, conversation_id: int | None, cancel: CancelToken
    ) -> Generator[Step, None, ToolRan]:
        """Decide and, if allowed, run one call; yields the steps a UI shows."""
        tool = self.tools.get(call.name)
        arguments, problem = self._validated(tool, call)
        preview = tool.describe(arguments) if tool and arguments is not None else call.name
        yield ToolProposed(call, tool, preview)
        verdict = self.gate.evaluate(
            tool, call.name, arguments, conversation_id=_key(conversation_id), taint=self.taint
        )
        decision = yield from self._decide(
            call, _key(conversation_id), tool, arguments, verdict, preview, cancel
        )
        self._audit_decision(call, conversation_id, verdict, decision)
        if not decision.run or tool is None or decision.arguments is None:
            denial = _denial(problem, decision)
            ran = ToolRan(
                call,
                "invalid" if problem else "denied",
                denial,
                decision.decided_by,
                result=denial,
            )
        else:
            ran = self._run(call, tool, decision, conversation_id)
        yield ran
        return ran

    def _validated(self, tool: Tool | None, call: ToolCall) -> tuple[dict[str, Any] | None, str]:
        if tool is None:
            return None, f"there is no tool named {call.name!r}"
        try:
            return _plain(tool.validate(call.arguments)), ""
        except ToolArgumentsError as error:
            return None, str(error)

    def _decide(
        self,
        call: ToolCall,
        conversation_id: str | None,
        tool: Tool | None,
        arguments: dict[str, Any] | None,
        verdict: Verdict,
        preview: str,
        cancel: CancelToken,
    ) -> Generator[Step, None, _Decision]:
        if verdict.outcome == "allow":
            rule = f"rule {verdict.rule.id}" if verdict.rule else "rule"
            return _Decision(True, arguments, rule, verdict.reason)
        if verdict.outcome == "deny" or tool is None or arguments is None:
            return _Decision(False, None, _fail_closed(verdict), verdict.reason)
        if not self.interactive:
            return _Decision(False, None, f"fail-closed: {HEADLESS}", HEADLESS)
        request = ConsentRequest(call, tool, verdict, preview)
        yield ConsentAsked(request)
        answer = self._wait(request, cancel)
        return self._apply(answer, tool, arguments, conversation_id)

    def _wait(self, request: ConsentRequest, cancel: CancelToken) -> Answer | None:
        deadline = time.monotonic() + self.consent_timeout
        while time.monotonic() < deadline and not cancel.cancelled:
            answer = request.wait(min(0.25, max(0.0, deadline - time.monotonic())))
            if answer is not None:
                return answer
        return None

    def _apply(
        self,
        answer: Answer | None,
        tool: Tool,
        arguments: dict[str, Any],
        conversation_id: str | None,
    ) -> _Decision:
        if answer is None:
            return _Decision(False, None, "fail-closed: no answer", "no answer came in time")
        if isinstance(answer, Deny):
            return _Decision(False, None, "user", answer.reason)
        if isinstance(answer, EditArguments):
            try:
                edited = _plain(tool.validate(answer.arguments))
            except ToolArgumentsError as error:
                return _Decision(False, None, "user", f"the edited arguments are invalid: {error}")
            return _Decision(True, edited, "user (edited)", "the user edited and approved it")
        if isinstance(answer, AllowFor):
            rule = self.gate.grant(
                tool, arguments, answer.duration, conversation_id, scope=answer.scope
            )
            return _Decision(True, arguments, f"user (rule {rule.id})", "the user approved it")
        assert isinstance(answer, AllowOnce)
        return _Decision(True, arguments, "user", "the user approved it once")

    def _run(
        self, call: ToolCall, tool: Tool, decision: _Decision, conversation_id: int | None
    ) -> ToolRan:
        assert decision.arguments is not None
        intent = (
            self.intents.intend(call.id, tool.name, decision.arguments)
            if tool.side_effecting
            else None
        )
        started = time.perf_counter()
        try:
            result = tool.invoke(decision.arguments)
        except Exception as error:  # the tool's failure is the model's observation
            elapsed = (time.perf_counter() - started) * 1000
            text = f"Error: {type(error).__name__}: {error}"
            if intent is not None:
                self.intents.failed(intent, text)
            self.audit.record_outcome(
                call.id, "failed", result_summary=text, duration_ms=round(elapsed)
            )
            # An error message can carry outside text too (a server's reply, a file name).
            observation = self.taint.fence(text, f"{tool.name} error")
            return ToolRan(call, "failed", observation, decision.decided_by, elapsed, result=text)
        elapsed = (time.perf_counter() - started) * 1000
        text = _as_text(result)
        if intent is not None:
            self.intents.executed(intent, text[:200])
        self.audit.record_outcome(
            call.id, "executed", result_summary=text, duration_ms=round(elapsed)
        )
        undoable = tool.undo is not None and self.undo_log is not None
        if undoable:
            assert self.undo_log is not None
            summary = tool.describe(decision.arguments)
            self.undo_log.record(
                call.id, tool.name, decision.arguments, result, summary, conversation_id
            )
        observation = self.taint.fence(text, f"{tool.name} result")
        return ToolRan(
            call, "executed", observation, decision.decided_by, elapsed, undoable, result=text
        )

    def _audit_decision(
        self, call: ToolCall, conversation_id: int | None, verdict: Verdict, decision: _Decision
    ) -> None:
        self.audit.append(
            call_id=call.id,
            tool=call.name,
            arguments=call.arguments if decision.arguments is None else decision.arguments,
            decision="allow" if decision.run else "deny",
            decided_by=decision.decided_by,
            outcome="proposed" if decision.run else "denied",
            conversation_id=conversation_id,
            taint=verdict.taint,
            result_summary=decision.reason,
        )


def _plain(arguments: dict[str, Any]) -> dict[str, Any]:
    """Validated arguments as JSON values (paths as strings): what the gate and the log see."""
    plain: dict[str, Any] = json.loads(json.dumps(arguments, default=str))
    return plain


def _key(conversation_id: int | None) -> str | None:
    return None if conversation_id is None else str(conversation_id)


def _fail_closed(verdict: Verdict) -> str:
    if verdict.rule is not None:
        return f"rule {verdict.rule.id}"
    return f"fail-closed: {verdict.reason}"


def _denial(problem: str, decision: _Decision) -> str:
    if problem:
        return f"Error: {problem}"
    return f"Denied: {decision.reason}"


def _as_text(result: Any) -> str:
    text = (
        result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    )
    if len(text) > RESULT_LIMIT:
        return f"{text[:RESULT_LIMIT]}\n[... {len(text) - RESULT_LIMIT} more characters cut]"
    return text
