"""Why a proposed call is refused before the gate is asked: a tool that does not exist or was
not offered, arguments that do not fit its signature, or a call its own check or parser says
cannot run. A refusal in the world's words (a missing file's name) carries its source, since
it quotes outside text.

Arguments that do not fit, or that a parser refuses in a spelling a person could correct (a
relative path, an address with no domain), make a refusal with `problems`: a front end may ask
the user to fix them rather than refuse. A call no edit could save (an unknown tool, a path
outside every granted folder) has none, and is refused outright.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from hearth.agent.asking import fail_closed, plain
from hearth.errors import ToolFailure
from hearth.messages import ToolCall
from hearth.ruling import Reason, Ruling
from hearth.tools import ArgumentProblem, ArgumentRefused, Tool, ToolArgumentsError


@dataclass(frozen=True)
class Refusal:
    """Why a call was refused before the gate; `source` is set when the reason is the world's
    own words (a tool's `check` or parser), which may quote outside text. `problems` are set
    when the user could correct the arguments, in plain words, by argument."""

    ruling: Ruling
    source: str = ""
    problems: tuple[ArgumentProblem, ...] = ()

    @property
    def quotes_outside(self) -> bool:
        return bool(self.source)


@dataclass(frozen=True)
class Examined:
    """A proposed call after every check made before the gate: the call as cards show it, the
    tool as the gate judges it, the arguments it rules on; or the refusal. A call the user may
    fix has no arguments yet: nothing rules on, previews or runs what cannot be used."""

    call: ToolCall
    tool: Tool | None
    arguments: dict[str, Any] | None
    refusal: Refusal | None = None

    @property
    def fixable(self) -> bool:
        return self.refusal is not None and bool(self.refusal.problems)


def examine(tool: Tool | None, call: ToolCall, offered: Collection[str] | None) -> Examined:
    """Everything checked before the gate, in order: the tool, its signature, its owner's
    parser, its own check, and whom the call notifies."""
    arguments, refusal = validated(tool, call, offered)
    if refusal is not None and refusal.problems:
        return Examined(call, tool, None, refusal)
    if refusal is not None or tool is None or arguments is None:
        return Examined(call, tool, arguments, refusal)
    call = as_read(call, tool, arguments)
    refusal = cannot_run(tool, arguments)
    judged = tool
    if refusal is None:
        judged, refusal = judged_tool(tool, arguments)
    if refusal is not None and refusal.problems:
        return Examined(call, tool, None, refusal)
    return Examined(call, judged, arguments, refusal)


def world_refusal(tool: Tool, arguments: dict[str, Any], error: ToolFailure | OSError) -> Refusal:
    """A refusal in the world's words; one the user could correct says so, by argument."""
    if isinstance(error, ArgumentRefused):
        problem = ArgumentProblem(error.argument, error.words)
        ruling = fail_closed(Reason.INVALID_ARGUMENTS, str(error))
        return Refusal(ruling, tool.source(arguments, failed=True), (problem,))
    ruling = fail_closed(Reason.CANNOT_RUN, f"this call cannot run: {world_error(error)}")
    return Refusal(ruling, tool.source(arguments, failed=True))


def cannot_run(tool: Tool, arguments: dict[str, Any]) -> Refusal | None:
    """The refusal of a call its tool's `check` says cannot run, so no one is asked about it."""
    if tool.check is None:
        return None
    try:
        tool.check(arguments)
    except (ToolFailure, OSError) as error:
        return world_refusal(tool, arguments, error)
    return None


def judged_tool(tool: Tool, arguments: dict[str, Any]) -> tuple[Tool, Refusal | None]:
    """The tool as the gate judges this call: a send when it notifies people (invitations)."""
    try:
        invitation = tool.as_invitation(arguments)
    except (ToolFailure, OSError) as error:
        return tool, world_refusal(tool, arguments, error)
    return invitation or tool, None


def as_read(call: ToolCall, tool: Tool, arguments: dict[str, Any]) -> ToolCall:
    """The call as cards and steps show it: the model's arguments, with each one naming a
    resource in the spelling the gate rules on and the tool will use."""
    parsed = {name: arguments[name] for name in tool.scope_args if name in call.arguments}
    return replace(call, arguments={**call.arguments, **parsed}) if parsed else call


def validated(
    tool: Tool | None, call: ToolCall, offered: Collection[str] | None
) -> tuple[dict[str, Any] | None, Refusal | None]:
    """The call's arguments checked, converted and put in their owners' canonical spelling,
    or the fail-closed refusal."""
    if tool is None:
        wording = f"there is no tool named {call.name!r}"
        return None, Refusal(fail_closed(Reason.UNKNOWN_TOOL, wording))
    if offered is not None and call.name not in offered:
        wording = f"{call.name!r} was not offered for this step, so it cannot run now"
        return None, Refusal(fail_closed(Reason.NOT_OFFERED, wording))
    try:
        checked = plain(tool.validate(call.arguments))
    except ToolArgumentsError as error:
        return None, Refusal(fail_closed(Reason.INVALID_ARGUMENTS, str(error)), "", error.problems)
    try:
        return tool.canonical_arguments(checked), None
    except ToolArgumentsError as error:
        # The parser quoted the value it refused, which may come from outside.
        source = tool.source(checked, failed=True)
        return checked, Refusal(
            fail_closed(Reason.INVALID_ARGUMENTS, str(error)), source, error.problems
        )
    except (ToolFailure, OSError) as error:
        return checked, world_refusal(tool, checked, error)


def world_error(error: ToolFailure | OSError) -> str:
    if isinstance(error, ToolFailure):
        return str(error)
    return f"{type(error).__name__}: {error}"
