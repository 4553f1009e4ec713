"""`hearth chat` (and what `hearth ask` shares with it): agent turns in the terminal, reasoning
dimmed, every tool call shown and gated before it runs."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

import click

from hearth import (
    MAX_THREADS,
    AgentConfig,
    AgentSession,
    AnswerDelta,
    Assistant,
    CallMalformed,
    CancelToken,
    ChatModel,
    ConsentAsked,
    CpuMeter,
    Deny,
    GenerationSettings,
    Models,
    PromptProgress,
    Reason,
    ReasoningDelta,
    Tool,
    ToolChoice,
    ToolProposed,
    ToolRan,
    ToolsOffered,
    TurnDone,
    TurnFailed,
    connector_titles,
    offered_line,
    shown,
)
from hearth.cli.approve import INTERRUPTED, argument_lines, ask_terminal, check_allow, parse_allow
from hearth.cli.reading_line import ReadingLine
from hearth.cli.turn_end import say_turn_ended
from hearth.cli.worker import stream_on_worker

log = logging.getLogger(__name__)

SUMMARY_CHARS = 200
TOOL_COMMAND = "/tool"

model_option = click.option(
    "--model", "model_choice", metavar="ID|FILE", help="Catalog id or path to a .gguf file."
)
think_option = click.option(
    "--think/--no-think", default=True, help="Let the model reason before answering."
)
stats_option = click.option("--stats", is_flag=True, help="Print token counts and speed.")
threads_option = click.option(
    "--threads",
    type=click.IntRange(1, MAX_THREADS),
    metavar="N",
    help="Use exactly N CPU threads (default: the saved setting, else every core, using fewer "
    "while fewer are faster).",
)
allow_option = click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="TOOL[:SCOPE]",
    help="Allow a tool (optionally only for a scope) in this run; the only way a run without a "
    "terminal can use tools.",
)


def load_model(choice: str | None, n_ctx: int, threads: int | None = None) -> ChatModel:
    models = Models()
    path: Path = models.resolve(choice)
    click.secho(f"Loading {shown(path.name)}…", dim=True, err=True)
    return models.load(path, n_ctx, models.thread_policy(override=threads))


def stdin_is_terminal() -> bool:
    """Whether someone can answer consent questions here (tests stand in for one)."""
    return sys.stdin.isatty()


def open_session(
    assistant: Assistant,
    allow: Sequence[str],
    settings: GenerationSettings,
    *,
    interactive: bool | None = None,
) -> AgentSession:
    """A new conversation with the `--allow` rules; it asks in the terminal when there is one."""
    interactive = stdin_is_terminal() if interactive is None else interactive
    session = assistant.session(interactive=interactive, config=AgentConfig(settings=settings))
    tools = {tool.name: tool for tool in assistant.permissions.tools()}
    for text in allow:
        assistant.allow(parse_allow(text, tools, str(session.conversation_id), time.time()))
    for failure in assistant.plugin_failures():
        said = f"Plugin {failure.plugin} was skipped: {failure.error}"
        click.secho(shown(said), fg="yellow", err=True)
    for intent in assistant.unresolved:
        click.secho(
            f"A previous run started {shown(intent.tool)} but never confirmed it finished "
            f"(intent {intent.id}); check whether it happened. It will not be retried.",
            fg="yellow",
            err=True,
        )
    return session


def run_turn(
    session: AgentSession,
    text: str,
    show_stats: bool,
    tool_choice: ToolChoice = "auto",
    *,
    titles: Mapping[str, str] | None = None,
) -> None:
    """Print one turn as it streams, asking about tool calls on the way.

    The tools offered (connectors named by their `titles`) are said with `show_stats`, or
    whenever some were left out: then the user needs to know why a connector was not used.
    """
    cancel = CancelToken()
    in_reasoning = False
    cpu = CpuMeter()
    proposed: ToolProposed | None = None
    steps = partial(session.run_turn, text, cancel, tool_choice=tool_choice)
    reading = ReadingLine()
    # The session already took Hearth's own tags and notices out of what the model writes.
    for step in stream_on_worker(steps, cancel):
        if isinstance(step, PromptProgress):
            reading.show(step)
            continue
        reading.clear()
        if isinstance(step, ReasoningDelta):
            if not in_reasoning:
                click.secho("thinking: ", dim=True, nl=False)
                in_reasoning = True
            click.secho(_text(step.text), dim=True, nl=False)
            continue
        if in_reasoning:
            click.echo("\n")
            in_reasoning = False
        if isinstance(step, AnswerDelta):
            click.echo(_text(step.text), nl=False)
            continue
        if isinstance(step, ToolsOffered):
            if show_stats or step.left_out:
                click.secho(offered_line(step, titles), dim=True, err=True)
        elif isinstance(step, ToolProposed):
            proposed = step
            click.secho(f"\n→ {proposal_lines(step)}", fg="cyan")
        elif isinstance(step, ConsentAsked):
            answer = ask_terminal(step.request)
            step.request.answer(answer)
            if isinstance(answer, Deny) and answer.reason == INTERRUPTED:
                cancel.cancel()  # Ctrl-C: this call is denied and the turn stops
        elif isinstance(step, CallMalformed):
            note = f"the model tried to call a tool but the call was not valid: {step.reason}"
            click.secho(f"\n  {summary(note)}", dim=True)
        elif isinstance(step, ToolRan):
            show_ran(step, proposed.tool if proposed else None)
        elif isinstance(step, TurnFailed):
            click.secho(f"\nError: {shown(str(step.error))}", fg="red", err=True)
        elif isinstance(step, TurnDone):
            say_turn_ended(session, step, cpu, show_stats)


def show_ran(ran: ToolRan, tool: Tool | None = None) -> None:
    """What became of a call, and its result or error, each on one readable line."""
    if ran.outcome in ("denied", "invalid"):
        said = ran.ruling.sentence() or summary(ran.ruling.wording)
        click.secho(f"  {ran.outcome}: {said}", fg="yellow", dim=True)
        return
    colour = "green" if ran.outcome == "executed" else "yellow"
    click.secho(f"  {ran.outcome}: {how_decided(ran, tool)}", fg=colour, dim=True)
    click.echo(f"  {summary(ran.summary)}")


def how_decided(ran: ToolRan, tool: Tool | None = None) -> str:
    """Who let the call run, as a sentence; an edit shows the arguments that really ran."""
    ruling = ran.ruling
    if ruling.reason is Reason.EDITED:
        edit = "; ".join(argument_lines(ran.arguments or {}, tool))
        return f"ran with your edit ({summary(edit)})" if edit else "ran with your edit"
    return summary(ruling.sentence() or ruling.wording or f"decided by {ruling.by_whom()}")


def proposal_lines(step: ToolProposed) -> str:
    """The call's preview as the terminal prints it: escaped, later lines indented under it."""
    return "\n  ".join(shown(step.preview or step.call.name, lines=True).split("\n"))


def summary(text: str) -> str:
    """`text` on one safe line, cut to about 200 characters."""
    line = " ".join(shown(text, lines=True).split())  # a U+2028 or a CR stays visible
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


def _text(text: str) -> str:
    # The model may copy what it read (an escape sequence, a bidi control) into what it writes.
    return shown(text, lines=True)


def ready(
    allow: Sequence[str], model_choice: str | None, n_ctx: int, threads: int | None
) -> Assistant:
    """The assistant with its model loaded, once `--allow` names are known to be right.

    The plugins load beside the model, on a thread of their own; the session waits for them.
    """
    assistant = Assistant.open(defer_plugins=True)
    try:
        if allow:
            assistant.load_plugins()
            check_allow(allow, _tool_names(assistant))  # before the slow part: loading the model
        else:
            load_plugins_meanwhile(assistant)
        assistant.use_model(load_model(model_choice, n_ctx=n_ctx, threads=threads))
    except BaseException:
        assistant.close()
        raise
    return assistant


def load_plugins_meanwhile(assistant: Assistant) -> None:
    """Start loading the plugins on a thread. What goes wrong there is only logged: the session
    loads them again and raises it where the user sees it."""

    def load() -> None:
        try:
            assistant.load_plugins()
        except Exception:
            log.debug("loading the plugins failed; the session tries again", exc_info=True)

    threading.Thread(target=load, name="hearth-plugins", daemon=True).start()


@click.command()
@model_option
@think_option
@stats_option
@allow_option
@threads_option
@click.option("--max-tokens", default=1024, show_default=True)
def chat(
    model_choice: str | None,
    think: bool,
    stats: bool,
    allow: tuple[str, ...],
    threads: int | None,
    max_tokens: int,
) -> None:
    """Talk with Hearth in the terminal. Ctrl-C stops a reply; Ctrl-D or /quit leaves."""
    assistant = ready(allow, model_choice, 8192, threads)
    model = assistant.model
    assert model is not None
    try:
        settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
        session = open_session(assistant, allow, settings)
        # The name the window shows: the catalog's, else the file's cleaned name.
        name = shown(assistant.models.display_name(model.info))
        click.secho(
            f"{name} ready. Ctrl-C stops a reply; /tool MESSAGE makes it use a tool.", dim=True
        )
        _converse(session, stats, connector_titles(assistant.connectors()))
    finally:
        assistant.close()


def _converse(session: AgentSession, stats: bool, titles: Mapping[str, str]) -> None:
    """Read lines until Ctrl-D or /quit; `/tool MESSAGE` sends MESSAGE with a tool required."""
    while True:
        try:
            text = click.prompt("you", prompt_suffix="> ").strip()
        except (EOFError, click.exceptions.Abort):
            click.echo()
            return
        if text in ("/quit", "/exit"):
            return
        command, _, message = text.partition(" ")
        if command == TOOL_COMMAND:
            if not message.strip():
                click.secho("Say what the tool is for: /tool search my files for taxes", dim=True)
                continue
            run_turn(session, message.strip(), stats, "required", titles=titles)
        elif text:
            run_turn(session, text, stats, titles=titles)


def _tool_names(assistant: Assistant) -> set[str]:
    return {tool.name for tool in assistant.permissions.tools()}
