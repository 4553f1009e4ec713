"""`hearth ask`: one question, streamed to the terminal, or as JSON lines for a pipeline."""

from __future__ import annotations

import json

import click

from hearth import (
    AgentSession,
    CancelToken,
    ConsentAsked,
    Deny,
    GenerationSettings,
    ToolChoice,
    TurnRecord,
    connector_titles,
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
    for step in session.run_turn(prompt, CancelToken(), tool_choice=choice):
        if isinstance(step, ConsentAsked):
            # Headless sessions refuse by themselves; this keeps a question from ever waiting.
            step.request.answer(Deny(NOBODY_TO_ASK))
        finished = record.add(step)
        if finished is not None:
            # Arguments, previews and errors quote outside text: escaped as everywhere it is shown;
            # line breaks stay, JSON writes them as \n.
            click.echo(json.dumps(shown_data(finished, lines=True), ensure_ascii=False))
