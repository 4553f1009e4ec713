"""The terminal's consent card: show a proposed call in full and ask what to do with it.

Enter alone means deny: permission is never one keystroke away from "always".
"""

from __future__ import annotations

import json
from typing import Any

import click

from hearth.agent import AllowFor, AllowOnce, Answer, ConsentRequest, Deny, EditArguments
from hearth.consent import Duration, Rule, scope_suggestions
from hearth.tools import Tool

DURATIONS: dict[str, Duration] = {"c": "conversation", "h": "hour", "a": "always"}


def show_request(request: ConsentRequest) -> None:
    tool, call = request.tool, request.call
    click.secho(f"\n┌ {tool.name} wants to run ({tool.effect})", fg="cyan", bold=True)
    for name, value in call.arguments.items():
        click.echo(f"│ {name}: {json.dumps(value, ensure_ascii=False)}")
    if request.preview and request.preview != tool.name:
        click.echo(f"│ preview: {request.preview}")
    for note in request.taint:
        click.secho(f"│ ⚠ {note.argument} {note.value!r} came from {note.source}", fg="yellow")
    click.secho(f"│ why asked: {request.verdict.reason}", dim=True)


def ask_terminal(request: ConsentRequest) -> Answer:
    """Ask on the terminal; anything but a clear choice denies."""
    show_request(request)
    choice = (
        click.prompt("└ [o]nce, [f]or…, [e]dit, [d]eny", default="d", show_default=False)
        .strip()
        .lower()
    )
    if choice == "o":
        return AllowOnce()
    if choice == "f":
        return _allow_for(request.tool, request.call.arguments)
    if choice == "e":
        return _edit(request.call.arguments)
    return Deny("the user said no")


def _allow_for(tool: Tool, arguments: dict[str, Any]) -> Answer:
    picked = (
        click.prompt("  for [c]onversation, [h]our or [a]lways", default="c", show_default=True)
        .strip()
        .lower()
    )
    duration = DURATIONS.get(picked)
    if duration is None:
        return Deny("no duration chosen")
    scopes = scope_suggestions(tool, arguments)
    if not scopes:
        return AllowFor(duration)
    for number, scope in enumerate(scopes, start=1):
        click.echo(f"  {number}. {scope}")
    index = click.prompt("  which resource", type=click.IntRange(1, len(scopes)), default=1)
    return AllowFor(duration, scope=scopes[index - 1])


def _edit(arguments: dict[str, Any]) -> Answer:
    edited = click.edit(json.dumps(arguments, indent=2, ensure_ascii=False), extension=".json")
    if edited is None:
        return Deny("editing was abandoned")
    try:
        data = json.loads(edited)
    except json.JSONDecodeError as error:
        return Deny(f"the edited arguments were not JSON ({error})")
    return EditArguments(data) if isinstance(data, dict) else Deny("arguments must be an object")


def parse_allow(text: str, tools: dict[str, Tool], conversation_id: str, now: float) -> Rule:
    """`--allow TOOL[:SCOPE]` as a rule for this run's conversation only."""
    name, _, scope = text.partition(":")
    if name not in tools and not name.endswith(".*"):
        known = ", ".join(sorted(tools)) or "none"
        raise click.BadParameter(f"unknown tool {name!r} (tools: {known})", param_hint="--allow")
    return Rule.create(
        name,
        "allow",
        now=now,
        scope=scope or None,
        duration="conversation",
        conversation_id=conversation_id,
        source="cli-flag",
    )
