"""The only path from a proposed call to a tool's implementation.

For each call: validate the arguments, run the tool's `check` (a call that cannot run is
refused before anyone is asked), ask the consent gate, ask the user when the gate says
so, write the decision to the audit log, record a side-effect intent, run, record the outcome.
A `ToolFailure` (or an OSError: a full disk, a server that is down) is the world answering, so
the model reads it as an observation; any other exception is a bug in Hearth or a plugin: the
call is recorded as failed and the turn ends with `ToolCrashed`, which the model never sees.

A tool with an `undo` gets its undo entry before it runs, and each `hearth.journal_step` it makes
is committed there before the item changes. A call that raises after journaling steps is
`partial` (audit and intent), not `failed`, and can be undone from its steps.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Generator
from dataclasses import replace
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from hearth.agent.asking import Asker, Decided, fail_closed
from hearth.agent.fixing import corrected, provenance
from hearth.agent.pages import result_text
from hearth.agent.refusals import Examined, Refusal, examine, world_error
from hearth.agent.steps import Outcome, Step, ToolProposed, ToolRan
from hearth.consent import ConsentGate, OutsideText, TaintNote, TaintTracker, Verdict
from hearth.errors import ToolCrashed, ToolFailure
from hearth.generation import MalformedToolCall
from hearth.messages import CancelToken, ToolCall
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, IntentLog, Journal, Steps, UndoLog
from hearth.store.journal import journaling
from hearth.tools import Provenance, Tool, ToolRegistry, summary_of

MALFORMED_NAME = "invalid_tool_call"
_RAW_LIMIT = 2000


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
        self,
        call: ToolCall,
        conversation_id: int | None,
        cancel: CancelToken,
        offered: Collection[str] | None = None,
    ) -> Generator[Step, None, ToolRan]:
        """Decide and, if allowed, run one call; yields the steps a UI shows.

        `offered` names the tools this step offered the model: any other is refused, even a
        registered one. None means no turn offered a set, as when a test calls directly.
        Arguments the user could correct are put to them first, when someone is there to ask;
        a correction is examined from the start, like a proposal, and then ruled on by the gate.
        """
        tool = self.tools.get(call.name)
        proposed = call
        examined = examine(tool, call, offered)
        call = examined.call
        arguments = examined.arguments
        preview = tool.preview_text(arguments) if tool and arguments is not None else None
        yield ToolProposed(call, examined.tool, preview)
        key = None if conversation_id is None else str(conversation_id)
        first, fixed = examined, None
        if examined.fixable and tool is not None and self.asker.interactive:
            examined, fixed = yield from corrected(self.asker, examined, tool, cancel, offered)
        was_corrected = examined is not first
        decided, taint = yield from self._decided(
            examined, fixed, key, cancel, dict(call.arguments) if was_corrected else None
        )
        made = provenance(call, examined, decided.arguments, corrected=was_corrected)
        if not decided.ruling.allowed or tool is None or decided.arguments is None:
            ran = self._refused(call, decided, examined.refusal, asked=fixed is not None)
            self._audit_decision(
                call, conversation_id, taint, decided, proposed=proposed, summary=ran.summary
            )
        else:
            self._audit_decision(call, conversation_id, taint, decided, proposed, made)
            try:
                ran = replace(self._run(call, tool, decided, conversation_id), provenance=made)
            except ToolCrashed as crash:
                # The card shows the failure; the turn then ends, so the model never reads it.
                crashed = ToolRan(
                    call,
                    "failed",
                    "",
                    decided.ruling,
                    result=str(crash),
                    arguments=decided.arguments,
                    provenance=made,
                )
                yield crashed
                raise
        yield ran
        return ran

    def _decided(
        self,
        examined: Examined,
        fixed: Decided | None,
        key: str | None,
        cancel: CancelToken,
        edited_from: dict[str, Any] | None,
    ) -> Generator[Step, None, tuple[Decided, tuple[TaintNote, ...]]]:
        """The decision on an examined call: its refusal, the gate's, or the user's."""
        refusal, judged, arguments = examined.refusal, examined.tool, examined.arguments
        if fixed is not None:
            return fixed, ()
        if refusal is not None or judged is None or arguments is None:
            unknown = fail_closed(Reason.UNKNOWN_TOOL, examined.call.name)
            return Decided(refusal.ruling if refusal else unknown), ()
        name = examined.call.name
        verdict = self.gate.evaluate(judged, name, arguments, conversation_id=key, taint=self.taint)
        if verdict.outcome != "ask":
            return Decided(_by_rule(verdict), arguments), verdict.taint
        decided = yield from self.asker.ask(
            examined.call, judged, arguments, verdict, key, cancel, edited_from=edited_from
        )
        return decided, verdict.taint

    def _refused(
        self, call: ToolCall, decided: Decided, refusal: Refusal | None, *, asked: bool
    ) -> ToolRan:
        """A call that will not run, as the model reads it: refused before the gate, or denied.
        A correction the user was asked for and did not give also says why it was asked."""
        outcome: Outcome = "invalid" if refusal is not None and not asked else "denied"
        if outcome == "invalid":
            assert refusal is not None
            text = observation = f"Error: {refusal.ruling.wording}"
        else:
            text = observation = f"Denied: {decided.ruling.wording}"
            if refusal is not None:
                observation += f"\nThe call could not run as proposed: {refusal.ruling.wording}"
        if refusal is not None and refusal.quotes_outside:
            # The world's words (a name that does not exist, and the ones that do) are
            # outside text like any tool output: fenced, and read by the rule of two.
            observation = self.taint.fence(OutsideText(observation, refusal.source))
        return ToolRan(call, outcome, observation, decided.ruling, result=text)

    def refuse_malformed(self, failure: MalformedToolCall, conversation_id: int | None) -> ToolRan:
        """Put a call that never parsed on the record, refused; what the model reads about it."""
        call = ToolCall(MALFORMED_NAME, {"raw": failure.raw[:_RAW_LIMIT]})
        wording = f"that tool call could not be used: {failure.reason}"
        ruling = fail_closed(Reason.MALFORMED, wording)
        text = f"Error: {wording}"
        ran = ToolRan(call, "invalid", text, ruling, result=text)
        self._audit_decision(call, conversation_id, (), Decided(ruling), summary=ran.summary)
        return ran

    def _run(
        self, call: ToolCall, tool: Tool, decided: Decided, conversation_id: int | None
    ) -> ToolRan:
        arguments = decided.arguments
        assert arguments is not None
        intent = self.intents.intend(call.id, tool.name, arguments) if tool.side_effecting else None
        journal = self._journal(call, tool, arguments, conversation_id)
        started = time.perf_counter()
        try:
            with journaling(journal.step):
                result = tool.invoke(arguments)
        except (ToolFailure, OSError) as error:
            outcome, text = self._stopped(call, intent, journal, world_error(error), started)
            # An error message can carry outside text too (a server's reply, a file name).
            observation = self.taint.fence(OutsideText(text, tool.source(arguments, failed=True)))
            elapsed = (time.perf_counter() - started) * 1000
            undoable = outcome == "partial" and journal.entry is not None
            return ToolRan(
                call,
                outcome,
                observation,
                decided.ruling,
                elapsed,
                undoable,
                result=text,
                arguments=arguments,
            )
        except Exception as error:
            crash = ToolCrashed(tool.name, error)
            self._stopped(call, intent, journal, str(crash), started)
            raise crash from error
        elapsed = (time.perf_counter() - started) * 1000
        text, summary = result_text(result), summary_of(result)
        if journal.entry is not None and self.undo_log is not None:
            # Before `executed` is written, so an executed call always has its whole undo.
            self.undo_log.finish(call.id, to_jsonable_python(result, fallback=str))
        if intent is not None:
            self.intents.executed(intent, text[:200])
        self.audit.record_outcome(
            call.id,
            "executed",
            result_summary=text,
            card_summary=summary,
            duration_ms=round(elapsed),
        )
        observation = self.taint.fence(OutsideText(text, tool.source(arguments)))
        undoable = journal.entry is not None
        return ToolRan(
            call,
            "executed",
            observation,
            decided.ruling,
            elapsed,
            undoable,
            result=text,
            arguments=arguments,
            returned=result,
            summary=summary,
        )

    def _journal(
        self, call: ToolCall, tool: Tool, arguments: dict[str, Any], conversation_id: int | None
    ) -> Journal:
        """Where the call's `journal_step` records go: its undo entry, opened before it runs."""
        if tool.undo is None or self.undo_log is None:
            return Journal(None)
        summary = tool.describe(arguments)
        entry = self.undo_log.begin(call.id, tool.name, arguments, summary, conversation_id)
        return Journal(self.undo_log, entry)

    def _stopped(
        self, call: ToolCall, intent: int | None, journal: Journal, error: str, started: float
    ) -> tuple[Literal["partial", "failed"], str]:
        """Record a call that raised: `partial` if it journaled any step, else `failed`."""
        steps = journal.stop(call.id)
        text = f"Error: {error}"
        outcome: Literal["partial", "failed"] = "partial" if steps else "failed"
        if steps:
            text += f"\n{_partly_done(steps, undoable=journal.entry is not None)}"
        if intent is not None:
            (self.intents.partial if steps else self.intents.failed)(intent, text)
        elapsed = round((time.perf_counter() - started) * 1000)
        self.audit.record_outcome(
            call.id,
            outcome,
            result_summary=text,
            card_summary=summary_of(text),
            duration_ms=elapsed,
        )
        return outcome, text

    def _audit_decision(
        self,
        call: ToolCall,
        conversation_id: int | None,
        taint: Any,
        decided: Decided,
        proposed: ToolCall | None = None,
        made: Provenance | None = None,
        *,
        summary: str | None = None,
    ) -> None:
        """The decision's row; `summary` is the card's line of a call that will not run, `made`
        where a call's arguments came from."""
        ruling = decided.ruling
        self.audit.append(
            call_id=call.id,
            tool=call.name,
            arguments=call.arguments if decided.arguments is None else decided.arguments,
            proposed_arguments=(proposed or call).arguments,
            ruling=ruling,
            outcome="proposed" if ruling.allowed else "denied",
            conversation_id=conversation_id,
            taint=taint,
            result_summary=ruling.wording,
            card_summary=summary,
            edited_from=made.edited_from if made else None,
        )


def _by_rule(verdict: Verdict) -> Ruling:
    """The gate's own allow or deny, under the rule that made it (or failing closed)."""
    if verdict.rule is None:
        return fail_closed(verdict.cause, verdict.reason)
    allowed, rule = verdict.outcome == "allow", verdict.rule
    return Ruling(allowed, Decider.RULE, verdict.cause, verdict.reason, rule.id, rule.describe())


def _partly_done(steps: Steps, *, undoable: bool) -> str:
    undo = " Undo can put them back." if undoable else ""
    return (
        f"Partly done; begun before the error (the last may be unchanged): {result_text(steps)}."
        f"{undo}"
    )
