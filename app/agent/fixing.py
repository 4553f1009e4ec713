"""Asking the user to correct a call that cannot run as proposed (a relative path, an address
with no domain), and saying where the arguments that ran came from once they did.

Each correction is examined from the start, exactly like a proposal (its owner's parser, its
check, whom it notifies), so the gate later rules on the one value the tool will use.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Mapping
from dataclasses import replace
from typing import Any

from hearth.agent.asking import NOT_FIXED, Asker, Decided, fail_closed
from hearth.agent.refusals import Examined, examine
from hearth.agent.steps import Step
from hearth.messages import CancelToken, ToolCall
from hearth.ruling import Reason
from hearth.tools import Provenance, Tool

FIX_ROUNDS = 5


def corrected(
    asker: Asker,
    examined: Examined,
    tool: Tool,
    cancel: CancelToken,
    offered: Collection[str] | None,
) -> Generator[Step, None, tuple[Examined, Decided | None]]:
    """Ask for a correction until the arguments can be used (the decision is then the gate's),
    or the user refuses; a script sending the same bad edit again and again is refused after a
    few rounds."""
    for _ in range(FIX_ROUNDS):
        if examined.refusal is None or not examined.refusal.problems:
            return examined, None
        problems = examined.refusal.problems
        answer = yield from asker.ask_to_fix(examined.call, tool, problems, cancel)
        if isinstance(answer, Decided):
            return examined, answer
        examined = examine(tool, replace(examined.call, arguments=dict(answer.arguments)), offered)
    return examined, Decided(fail_closed(Reason.INVALID_ARGUMENTS, NOT_FIXED))


def provenance(
    call: ToolCall, examined: Examined, ran: Mapping[str, Any] | None, *, corrected: bool
) -> Provenance:
    """Where the arguments that ran came from. A call the user corrected was edited from the
    model's own arguments (`call`'s); the defaults Hearth added to the correction are no edit."""
    made = Provenance.of(examined.call.arguments, examined.arguments, ran)
    if not corrected or ran is None:
        return made
    return Provenance(made.filled, {**made.filled, **call.arguments})
