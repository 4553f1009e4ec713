"""`hearth ask`: one question, streamed to the terminal, or as JSON lines for a pipeline."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

import click

from hearth import (
    AgentSession,
    CancelToken,
    ConsentAsked,
    Deny,
    GenerationSettings,
    ToolChoice,
    ToolRan,
    TurnRecord,
    connector_titles,
    shown,
    shown_data,
)
from hearth.cli.chat import (
    allow_option,
    model_option,
    open_session,
    ready,
    run_turn,
    stats_option,
    think_option,
    threads_option,
)

NOBODY_TO_ASK = "no one can answer a question during --json; allow it with --allow"
_BEYOND_PRINTABLE_ASCII = re.compile(r"[^\x00-\x7e]")  # DEL too: JSON leaves it raw


@click.command()
@click.argument("prompt")
@model_option
@think_option
@stats_option
@allow_option
@threads_option
@click.option("--max-tokens", default=512, show_default=True)
@click.option("--tool", "use_tool", is_flag=True, help="Make the model call a tool first.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON lines for scripts: one per tool call as it ends, then the whole turn. "
    "Nothing is asked: only --allow rules and your saved rules let tools run.",
)
def ask(
    prompt: str,
    model_choice: str | None,
    think: bool,
    stats: bool,
    allow: tuple[str, ...],
    threads: int | None,
    max_tokens: int,
    use_tool: bool,
    as_json: bool,
) -> None:
    """Ask one question and stream the answer."""
    assistant = ready(allow, model_choice, 4096, threads)
    try:
        settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
        choice: ToolChoice = "required" if use_tool else "auto"
        if as_json:
            session = open_session(assistant, allow, settings, interactive=False)
            print_json_turn(session, prompt, choice)
        else:
            session = open_session(assistant, allow, settings)
            titles = connector_titles(assistant.connectors())
            run_turn(session, prompt, stats, choice, titles=titles)
    finally:
        assistant.close()


def print_json_turn(session: AgentSession, prompt: str, choice: ToolChoice) -> None:
    """Each finished call as a JSON line, then `{"type": "done", ...}` with the whole turn."""
    record = TurnRecord()
    returned: dict[str, str] = {}  # each call's result as the tool gave it, by call id
    for step in session.run_turn(prompt, CancelToken(), tool_choice=choice):
        if isinstance(step, ConsentAsked):
            # Headless sessions refuse by themselves; this keeps a question from ever waiting.
            step.request.answer(Deny(NOBODY_TO_ASK))
        if isinstance(step, ToolRan):
            returned[step.call.id] = step.result
        finished = record.add(step)
        if finished is not None:
            click.echo(json_line(for_scripts(finished, returned)))


def for_scripts(record: dict[str, Any], returned: dict[str, str]) -> dict[str, Any]:
    """`record` with each call's result the real text, for a script to parse (a server's JSON).

    Arguments, previews and errors quote outside text: escaped as everywhere it is shown, line
    breaks kept.
    """
    kind = record.get("type")
    if kind == "tool_call":
        real = returned.get(record["id"], "")
        return {
            key: real if key == "result" else shown_data(value, lines=True)
            for key, value in record.items()
        }
    if kind == "done":
        calls = [for_scripts(call, returned) for call in record["calls"]]
        return {**_shown_dict(record), "calls": calls}
    return _shown_dict(record)


def json_line(record: dict[str, Any]) -> str:
    """`record` as one JSON line that a terminal shows as it is.

    JSON escapes the control characters (a line break is `\\n`, so no text adds a line); the
    other characters `shown` would escape (bidi controls, line separators, invisible ones) and
    combining marks are written as JSON escapes too, which a script reads back as the text.
    """
    text = json.dumps(record, ensure_ascii=False)
    return _BEYOND_PRINTABLE_ASCII.sub(lambda found: _json_escaped(found[0]), text)


def _json_escaped(char: str) -> str:
    if shown(char) == char and unicodedata.category(char) not in ("Mn", "Me"):
        return char
    return json.dumps(char)[1:-1]  # "\u202e", or a surrogate pair beyond the BMP


def _shown_dict(record: dict[str, Any]) -> dict[str, Any]:
    return {key: shown_data(value, lines=True) for key, value in record.items()}
