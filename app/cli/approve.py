"""The terminal's consent card: show a proposed call in full and ask what to do with it.

Enter alone means deny: permission is never one keystroke away from "always". Control, bidi and
invisible characters are shown as escapes (`hearth.shown`), so what the card says is what the call
does.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import click

from hearth import (
    DURATION_WORDS,
    EFFECT_WORDS,
    AllowFor,
    AllowOnce,
    Answer,
    ConsentRequest,
    Deny,
    Duration,
    EditArguments,
    Rule,
    Tool,
    ToolArgumentsError,
    shown,
)

INTERRUPTED = "the user interrupted the question"


def show_request(request: ConsentRequest) -> None:
    tool, call = request.tool, request.call
    effect = EFFECT_WORDS.get(tool.effect, tool.effect)
    click.secho(f"\n┌ {shown(tool.name)} wants to run ({effect})", fg="cyan", bold=True)
    # The preview is the proposal line printed just above the card; it is not repeated here.
    for argument in argument_lines(call.arguments):
        click.echo(f"│ {argument}")
    for problem in request.problems:  # what to correct before it can run, in plain words
        click.secho(f"│ ⚠ {_lines(problem.words)}", fg="yellow")
    for taint in request.taint:
        click.secho(f"│ ⚠ {shown(taint.sentence)}", fg="yellow")  # names a source: one line
    click.secho(f"│ why asked: {_lines(request.reason)}", dim=True)
    if request.no_grant:
        click.secho(f"│ note: {_lines(request.no_grant)}", dim=True)
    if request.rule_text:
        click.secho(f"│ rule: {_lines(request.rule_text)}", dim=True)
    elif request.overridden_rule:
        overridden = _lines(request.overridden_rule)
        click.secho(
            f"│ rule: {overridden} would allow it, but not after untrusted content", dim=True
        )


def argument_lines(arguments: Mapping[str, Any], tool: Tool | None = None) -> list[str]:
    """`name: value` once per argument; a null means "not set", so it is left out, and with
    `tool`, so is a value equal to its default.

    Values are JSON, so quotes and escapes show exactly what the tool will receive.
    """
    defaults = _defaults(tool) if tool is not None else {}
    return [
        f"{shown(name)}: {shown(json.dumps(value, ensure_ascii=False))}"
        for name, value in arguments.items()
        if value is not None and (name not in defaults or defaults[name] != value)
    ]


def _defaults(tool: Tool) -> dict[str, Any]:
    properties = tool.parameters.get("properties", {})
    return {name: spec["default"] for name, spec in properties.items() if "default" in spec}


def _lines(text: str) -> str:
    """Text for the card: safe to print, each line continued under the card's left edge."""
    return "\n│   ".join(shown(text.rstrip("\n"), lines=True).split("\n"))


def ask_terminal(request: ConsentRequest) -> Answer:
    """Ask on the terminal; anything but a clear choice denies, and so does Ctrl-C."""
    try:
        return _ask(request)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo()
        return Deny(INTERRUPTED)


def _ask(request: ConsentRequest) -> Answer:
    show_request(request)
    offered = "[e]dit, [d]eny" if request.problems else "[o]nce, [f]or…, [e]dit, [d]eny"
    choice = click.prompt(f"└ {offered}", default="d", show_default=False).strip().lower()
    if request.problems and choice in ("o", "f"):
        return Deny("the user said no")  # nothing can allow it as it stands
    if choice == "o":
        return AllowOnce()
    if choice == "f":
        return _allow_for(request)
    if choice == "e":
        return _edit(request)
    return Deny("the user said no")


def _allow_for(request: ConsentRequest) -> Answer:
    keys = {duration[0]: duration for duration in request.durations}
    offered = ", ".join(f"[{key}] {DURATION_WORDS[d]}" for key, d in keys.items())
    picked = click.prompt(f"  {offered}", default="c", show_default=True).strip().lower()
    duration: Duration | None = keys.get(picked[:1])
    if duration is None:
        return Deny("no duration chosen")
    if request.no_grant:
        return Deny(request.no_grant)
    choices: list[tuple[str, str | None]] = [(shown(scope), scope) for scope in request.scopes]
    if request.unscoped:
        choices.append((shown(request.unscoped), None))
    if not choices:
        return AllowFor(duration)
    for number, (label, _pattern) in enumerate(choices, start=1):
        click.echo(f"  {number}. {label}")
    index = click.prompt("  which resource", type=click.IntRange(1, len(choices)), default=1)
    return AllowFor(duration, scope=choices[index - 1][1])


def _edit(request: ConsentRequest) -> Answer:
    """Edit the arguments in $EDITOR, then show the edited call and ask again: an edit never
    runs unconfirmed. The countdown waits while the user is at it."""
    text = json.dumps(request.call.arguments, indent=2, ensure_ascii=False)
    request.pause()
    try:
        while True:
            edited = click.edit(text, extension=".json")
            if edited is None:
                return Deny("editing was abandoned")
            text = edited
            arguments, problem = _read_edit(request.tool, edited)
            show_edit(request, arguments, problem)
            offered = (
                "[e]dit again, [d]eny"
                if problem
                else "[a]llow with your edit, [e]dit again, [d]eny"
            )
            choice = click.prompt(f"└ {offered}", default="d", show_default=False).strip().lower()
            if choice == "a" and arguments is not None and not problem:
                return EditArguments(arguments)
            if choice != "e":
                return Deny("the user said no")
    finally:
        request.resume()


def _read_edit(tool: Tool, text: str) -> tuple[dict[str, Any] | None, str]:
    """The edited arguments (None when unreadable), and what is wrong with them ("" when
    nothing is)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"the edited arguments are not JSON ({error})"
    if not isinstance(data, dict):
        return None, "the arguments must be a JSON object"
    try:
        tool.validate(data)
    except ToolArgumentsError as error:
        return data, str(error)
    return data, ""


def show_edit(request: ConsentRequest, arguments: dict[str, Any] | None, problem: str) -> None:
    """The edited call as the card shows a call (its preview, then its arguments), with one
    "name: old → new" line for each argument the edit changed."""
    tool = request.tool
    if problem:
        click.secho(f"\n┌ {shown(tool.name)} cannot run as edited", fg="yellow", bold=True)
        click.secho(f"│ {_lines(problem)}", fg="yellow")
    if arguments is None:
        return
    if not problem:
        preview = tool.preview_text(tool.validate(arguments))
        if preview:
            lines = shown(preview, lines=True).split("\n")
            click.secho("\n→ " + "\n  ".join(lines), fg="cyan")
        effect = EFFECT_WORDS.get(tool.effect, tool.effect)
        click.secho(f"\n┌ {shown(tool.name)} with your edit ({effect})", fg="cyan", bold=True)
        for argument in argument_lines(arguments, tool):
            click.echo(f"│ {argument}")
    changes = changed_lines(request.call.arguments, arguments)
    click.secho("│ you changed: " + ("; ".join(changes) or "nothing"), bold=bool(changes))


def changed_lines(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """One "name: old → new" per argument changed, added or removed (null counts as unset)."""
    lines = []
    for name in dict.fromkeys([*before, *after]):
        old, new = before.get(name), after.get(name)
        if old != new:
            lines.append(f"{shown(name)}: {_value(old)} → {_value(new)}")
    return lines


def _value(value: Any) -> str:
    return "(not set)" if value is None else shown(json.dumps(value, ensure_ascii=False))


def check_allow(texts: Iterable[str], tools: Collection[str]) -> None:
    """Refuse an `--allow` naming no registered tool, before anything slow happens."""
    for text in texts:
        name = text.partition(":")[0]
        if name not in tools and not name.endswith(".*"):
            known = ", ".join(sorted(tools)) or "none"
            message = f"unknown tool {name!r} (tools: {known})"
            raise click.BadParameter(message, param_hint="--allow")


def parse_allow(text: str, tools: dict[str, Tool], conversation_id: str, now: float) -> Rule:
    """`--allow TOOL[:SCOPE]` as a rule for this run's conversation only."""
    check_allow([text], tools)
    name, _, scope = text.partition(":")
    return Rule.create(
        name,
        "allow",
        now=now,
        scope=scope or None,
        duration="conversation",
        conversation_id=conversation_id,
        source="cli-flag",
    )
