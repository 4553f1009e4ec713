"""The only path from a proposed call to a tool's implementation.

For each call: validate the arguments, ask the consent gate, ask the user when the gate says
so, write the decision to the audit log, record a side-effect intent, run, record the outcome.
A `ToolFailure` (or an OSError: a full disk, a server that is down) is the world answering, so
the model reads it as an observation; any other exception is a bug in Hearth or a plugin: the
call is recorded as failed and the turn ends with `ToolCrashed`, which the model never sees.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from hearth.agent.steps import (
    AllowFor,
    AllowOnce,
    Answer,
    ConsentAsked,
    ConsentRequest,
    Deny,
    EditArguments,
    Outcome,
    Step,
    ToolProposed,
    ToolRan,
)
from hearth.consent import ConsentGate, TaintTracker, Verdict
from hearth.errors import ToolCrashed, ToolFailure
from hearth.messages import CancelToken, ToolCall
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, IntentLog, UndoLog
from hearth.tools import Tool, ToolArgumentsError, ToolRegistry

RESULT_LIMIT = 4000
HEADLESS = "no one is here to approve it (headless run); allow it explicitly with --allow"
NO_ANSWER = "no answer came in time"


@dataclass(frozen=True)
class Decided:
    """The ruling, and the arguments to run with when it allows the call."""

    ruling: Ruling
    arguments: dict[str, Any] | None = None


class Asker:
    """Asks the user through `ConsentAsked` steps when the gate cannot decide alone."""

    def __init__(self, gate: ConsentGate, *, interactive: bool, timeout: float) -> None:
        self.gate = gate
        self.interactive = interactive
        self.timeout = timeout

    def decide(
        self,
        call: ToolCall,
        tool: Tool | None,
        arguments: dict[str, Any] | None,
        verdict: Verdict,
        conversation_id: str | None,
        cancel: CancelToken,
    ) -> Generator[Step, None, Decided]:
        if verdict.outcome == "allow":
            return Decided(_by_rule(verdict, allowed=True), arguments)
        if verdict.outcome == "deny" or tool is None or arguments is None:
            return Decided(_by_rule(verdict, allowed=False))
        if not self.interactive:
            return Decided(_fail_closed(Reason.HEADLESS, HEADLESS))
        request = ConsentRequest.build(call, tool, arguments, verdict)
        yield ConsentAsked(request)
        answer = self._wait(request, cancel)
        return self._apply(answer, tool, arguments, conversation_id)

    def _wait(self, request: ConsentRequest, cancel: CancelToken) -> Answer | None:
        deadline = time.monotonic() + self.timeout
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
    ) -> Decided:
        if answer is None:
            return Decided(_fail_closed(Reason.NO_ANSWER, NO_ANSWER))
        if isinstance(answer, Deny):
            return Decided(_by_user(False, Reason.DENIED, answer.reason))
        if isinstance(answer, EditArguments):
            try:
                edited = plain(tool.validate(answer.arguments))
            except ToolArgumentsError as error:
                wording = f"the edited arguments are invalid: {error}"
                return Decided(_by_user(False, Reason.EDIT_INVALID, wording))
            return Decided(_by_user(True, Reason.EDITED, answer.describe()), edited)
        if isinstance(answer, AllowFor):
            rule = self.gate.grant(
                tool, arguments, answer.duration, conversation_id, scope=answer.scope
            )
            ruling = Ruling(
                True, Decider.USER, Reason.ALLOWED_FOR, answer.describe(), rule.id, rule.describe()
            )
            return Decided(ruling, arguments)
        assert isinstance(answer, AllowOnce)
        return Decided(_by_user(True, Reason.ALLOWED_ONCE, answer.describe()), arguments)


def plain(arguments: dict[str, Any]) -> dict[str, Any]:
    """Validated arguments as JSON values (paths as strings): what the gate and the log see."""
    converted: dict[str, Any] = json.loads(json.dumps(arguments, default=str))
    return converted


def _by_rule(verdict: Verdict, *, allowed: bool) -> Ruling:
    if verdict.rule is None:
        return _fail_closed(verdict.cause, verdict.reason)
    rule = verdict.rule
    return Ruling(allowed, Decider.RULE, verdict.cause, verdict.reason, rule.id, rule.describe())


def _by_user(allowed: bool, reason: Reason, wording: str) -> Ruling:
    return Ruling(allowed, Decider.USER, reason, wording)


def _fail_closed(reason: Reason, wording: str) -> Ruling:
    return Ruling(False, Decider.FAIL_CLOSED, reason, wording)


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
        self.asker = Asker(gate, interactive=interactive, timeout=consent_timeout)
        self.undo_log = undo_log

    def handle(
        self, call: ToolCall, conversation_id: int | None, cancel: CancelToken
    ) -> Generator[Step, None, ToolRan]:
        """Decide and, if allowed, run one call; yields the steps a UI shows."""
        tool = self.tools.get(call.name)
        arguments, problem = self._validated(tool, call)
        preview = tool.preview_text(arguments) if tool and arguments is not None else None
        yield ToolProposed(call, tool, preview)
        key = None if conversation_id is None else str(conversation_id)
        verdict = self.gate.evaluate(
            tool, call.name, arguments, conversation_id=key, taint=self.taint
        )
        decided = yield from self.asker.decide(call, tool, arguments, verdict, key, cancel)
        self._audit_decision(call, conversation_id, verdict.taint, decided)
        if not decided.ruling.allowed or tool is None or decided.arguments is None:
            text = f"Error: {problem}" if problem else f"Denied: {decided.ruling.wording}"
            outcome: Outcome = "invalid" if problem else "denied"
            ran = ToolRan(call, outcome, text, decided.ruling, result=text)
        else:
            try:
                ran = self._run(call, tool, decided, conversation_id)
            except ToolCrashed as crash:
                # The card shows the failure; the turn then ends, so the model never reads it.
                yield ToolRan(call, "failed", "", decided.ruling, result=str(crash))
                raise
        yield ran
        return ran

    def _validated(self, tool: Tool | None, call: ToolCall) -> tuple[dict[str, Any] | None, str]:
        if tool is None:
            return None, f"there is no tool named {call.name!r}"
        try:
            return plain(tool.validate(call.arguments)), ""
        except ToolArgumentsError as error:
            return None, str(error)

    def _run(
        self, call: ToolCall, tool: Tool, decided: Decided, conversation_id: int | None
    ) -> ToolRan:
        arguments = decided.arguments
        assert arguments is not None
        intent = self.intents.intend(call.id, tool.name, arguments) if tool.side_effecting else None
        started = time.perf_counter()
        try:
            result = tool.invoke(arguments)
        except (ToolFailure, OSError) as error:
            text = f"Error: {_world_error(error)}"
            self._failed(call, intent, text, started)
            # An error message can carry outside text too (a server's reply, a file name).
            observation = self.taint.fence(text, f"{tool.name} error")
            elapsed = (time.perf_counter() - started) * 1000
            return ToolRan(call, "failed", observation, decided.ruling, elapsed, result=text)
        except Exception as error:
            crash = ToolCrashed(tool.name, error)
            self._failed(call, intent, str(crash), started)
            raise crash from error
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
            summary = tool.describe(arguments)
            stored = to_jsonable_python(result, fallback=str)
            self.undo_log.record(call.id, tool.name, arguments, stored, summary, conversation_id)
        observation = self.taint.fence(text, f"{tool.name} result")
        return ToolRan(
            call, "executed", observation, decided.ruling, elapsed, undoable, result=text
        )

    def _failed(self, call: ToolCall, intent: int | None, text: str, started: float) -> None:
        if intent is not None:
            self.intents.failed(intent, text)
        elapsed = round((time.perf_counter() - started) * 1000)
        self.audit.record_outcome(call.id, "failed", result_summary=text, duration_ms=elapsed)

    def _audit_decision(
        self, call: ToolCall, conversation_id: int | None, taint: Any, decided: Decided
    ) -> None:
        ruling = decided.ruling
        self.audit.append(
            call_id=call.id,
            tool=call.name,
            arguments=call.arguments if decided.arguments is None else decided.arguments,
            ruling=ruling,
            outcome="proposed" if ruling.allowed else "denied",
            conversation_id=conversation_id,
            taint=taint,
            result_summary=ruling.wording,
        )


def _world_error(error: ToolFailure | OSError) -> str:
    if isinstance(error, ToolFailure):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _as_text(result: Any) -> str:
    if isinstance(result, str):
        text = result
    else:
        text = json.dumps(to_jsonable_python(result, fallback=str), ensure_ascii=False)
    if len(text) > RESULT_LIMIT:
        return f"{text[:RESULT_LIMIT]}\n[... {len(text) - RESULT_LIMIT} more characters cut]"
    return text
