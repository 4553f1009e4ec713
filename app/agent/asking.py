"""Asking the user about a call the gate would not decide alone, and turning the answer into a
`Ruling`. Only calls the gate says "ask" about come here."""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from hearth.agent.answers import AllowFor, AllowOnce, Answer, Deny, EditArguments
from hearth.agent.steps import ConsentAsked, ConsentRequest, Step
from hearth.consent import ConsentError, ConsentGate, Verdict
from hearth.errors import ToolFailure
from hearth.messages import CancelToken, ToolCall
from hearth.ruling import Decider, Reason, Ruling
from hearth.tools import ArgumentProblem, Tool, ToolArgumentsError

HEADLESS = "no one is here to approve it (headless run); allow it explicitly with --allow"
HEADLESS_UNTRUSTED = (
    "no one is here to approve it (headless run), and this conversation has read untrusted "
    "content, so only a rule made 'even after reading untrusted content' could allow it"
)
_UNTRUSTED = (Reason.TAINTED_ARGUMENT, Reason.UNTRUSTED_CONTEXT)
NO_ANSWER = "no answer came in time"
NOT_FIXED = "its arguments cannot be used as they are, and they were not corrected"


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

    def ask(
        self,
        call: ToolCall,
        tool: Tool,
        arguments: dict[str, Any],
        verdict: Verdict,
        conversation_id: str | None,
        cancel: CancelToken,
        *,
        edited_from: dict[str, Any] | None = None,
    ) -> Generator[Step, None, Decided]:
        """Show the question, wait for the answer; no answer in time, or nobody there, denies.

        `edited_from` is the model's call when the user corrected it before this question."""
        if not self.interactive:
            wording = HEADLESS_UNTRUSTED if verdict.cause in _UNTRUSTED else HEADLESS
            return Decided(fail_closed(Reason.HEADLESS, wording))
        request = ConsentRequest.build(
            call, tool, arguments, verdict, timeout_s=self.timeout, edited_from=edited_from
        )
        yield ConsentAsked(request)
        answer = self._wait(request, cancel)
        return self._apply(answer, tool, arguments, conversation_id)

    def ask_to_fix(
        self, call: ToolCall, tool: Tool, problems: tuple[ArgumentProblem, ...], cancel: CancelToken
    ) -> Generator[Step, None, EditArguments | Decided]:
        """Ask the user to correct arguments that cannot be used as they are: the correction,
        which the caller examines like a new proposal, or the refusal (a denial, no answer)."""
        request = ConsentRequest.to_fix(call, tool, problems, timeout_s=self.timeout)
        yield ConsentAsked(request)
        answer = self._wait(request, cancel)
        if isinstance(answer, EditArguments):
            return answer
        if answer is None:
            return Decided(fail_closed(Reason.NO_ANSWER, NO_ANSWER))
        if isinstance(answer, Deny):
            return Decided(_by_user(False, Reason.DENIED, answer.reason))
        # Nothing can allow a call as it stands: only its correction could run.
        return Decided(fail_closed(Reason.INVALID_ARGUMENTS, NOT_FIXED))

    def _wait(self, request: ConsentRequest, cancel: CancelToken) -> Answer | None:
        """The answer, polling the request's own countdown (which a card may pause)."""
        while not cancel.cancelled:
            remaining = request.remaining()
            if remaining <= 0 and not request.paused:
                return request.wait(0)
            answer = request.wait(min(0.25, remaining) if remaining > 0 else 0.25)
            if answer is not None:
                return answer
        # Cancelled: an answer given just before the cancel still counts.
        return request.wait(0)

    def _apply(
        self,
        answer: Answer | None,
        tool: Tool,
        arguments: dict[str, Any],
        conversation_id: str | None,
    ) -> Decided:
        if answer is None:
            return Decided(fail_closed(Reason.NO_ANSWER, NO_ANSWER))
        if isinstance(answer, Deny):
            return Decided(_by_user(False, Reason.DENIED, answer.reason))
        if isinstance(answer, EditArguments):
            return self._edited(answer, tool, conversation_id)
        if isinstance(answer, AllowFor):
            try:
                rule = self.gate.grant(
                    tool,
                    arguments,
                    answer.duration,
                    conversation_id,
                    scope=answer.scope,
                    used=True,
                )
            except ConsentError as error:
                wording = f"the permission could not be saved, so the call did not run: {error}"
                return Decided(fail_closed(Reason.GRANT_FAILED, wording))
            ruling = Ruling(
                True, Decider.USER, Reason.ALLOWED_FOR, answer.describe(), rule.id, rule.describe()
            )
            return Decided(ruling, arguments)
        assert isinstance(answer, AllowOnce)
        return Decided(_by_user(True, Reason.ALLOWED_ONCE, answer.describe()), arguments)

    def _edited(self, answer: EditArguments, tool: Tool, conversation_id: str | None) -> Decided:
        """The user's edit, in the same canonical spelling a proposal gets; a deny rule still
        refuses it, since the edit may name a resource the proposal did not."""
        own = tool.primary or tool  # an invitation's people are read again from the edit
        try:
            edited = own.canonical_arguments(plain(own.validate(answer.arguments)))
            judged = own.as_invitation(edited) or own
        except (ToolArgumentsError, ToolFailure, OSError) as error:
            wording = f"the edited arguments are invalid: {error}"
            return Decided(_by_user(False, Reason.EDIT_INVALID, wording))
        denied = self.gate.denial(judged, edited, conversation_id=conversation_id)
        if denied is not None and denied.rule is not None:
            rule = denied.rule
            ruling = Ruling(
                False, Decider.RULE, denied.cause, denied.reason, rule.id, rule.describe()
            )
            return Decided(ruling)
        return Decided(_by_user(True, Reason.EDITED, answer.describe()), edited)


def plain(arguments: dict[str, Any]) -> dict[str, Any]:
    """Validated arguments as JSON values (paths as strings): what the gate and the log see."""
    converted: dict[str, Any] = json.loads(json.dumps(arguments, default=str))
    return converted


def _by_user(allowed: bool, reason: Reason, wording: str) -> Ruling:
    return Ruling(allowed, Decider.USER, reason, wording)


def fail_closed(reason: Reason, wording: str) -> Ruling:
    return Ruling(False, Decider.FAIL_CLOSED, reason, wording)
