"""`hearth ask` and `hearth chat`: agent turns in the terminal, reasoning dimmed, every tool
call shown and gated before it runs."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import click

from hearth.agent import (
    AgentConfig,
    AnswerDelta,
    CallMalformed,
    ConsentAsked,
    Deny,
    ReasoningDelta,
    Session,
    ToolProposed,
    ToolRan,
    TurnDone,
    TurnFailed,
)
from hearth.assistant import Assistant
from hearth.cli.approve import INTERRUPTED, ask_terminal, parse_allow
from hearth.cli.worker import stream_on_worker
from hearth.consent.canonical import safe_text
from hearth.generation import ChatModel, GenerationSettings
from hearth.messages import CancelToken
from hearth.models.loading import load_chat_model
from hearth.models.lookup import resolve_model
from hearth.models.speed_history import CpuMeter, SpeedHistory
from hearth.models.threads_setting import MAX_THREADS, thread_policy
from hearth.ruling import Reason

SUMMARY_CHARS = 200

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
    path: Path = resolve_model(choice)
    click.secho(f"Loading {path.name}…", dim=True, err=True)
    return load_chat_model(path, n_ctx, thread_policy(window=False, override=threads))


def stdin_is_terminal() -> bool:
    """Whether someone can answer consent questions here (tests stand in for one)."""
    return sys.stdin.isatty()


def open_session(
    assistant: Assistant, allow: Sequence[str], settings: GenerationSettings
) -> Session:
    interactive = stdin_is_terminal()
    session = assistant.session(interactive=interactive, config=AgentConfig(settings=settings))
    tools = {tool.name: tool for tool in assistant.permissions.tools()}
    for text in allow:
        assistant.allow(parse_allow(text, tools, str(session.conversation_id), time.time()))
    for failure in assistant.plugin_failures():
        click.secho(f"Plugin {failure.plugin} was skipped: {failure.error}", fg="yellow", err=True)
    for intent in assistant.unresolved:
        click.secho(
            f"A previous run started {intent.tool} but never confirmed it finished "
            f"(intent {intent.id}); check whether it happened. It will not be retried.",
            fg="yellow",
            err=True,
        )
    return session


def run_turn(session: Session, text: str, show_stats: bool) -> None:
    """Print one turn as it streams, asking about tool calls on the way."""
    cancel = CancelToken()
    in_reasoning = False
    cpu = CpuMeter()
    for step in stream_on_worker(lambda: session.run_turn(text, cancel), cancel):
        if isinstance(step, ReasoningDelta):
            if not in_reasoning:
                click.secho("thinking: ", dim=True, nl=False)
                in_reasoning = True
            click.secho(step.text, dim=True, nl=False)
            continue
        if in_reasoning:
            click.echo("\n")
            in_reasoning = False
        if isinstance(step, AnswerDelta):
            click.echo(step.text, nl=False)
        elif isinstance(step, ToolProposed):
            click.secho(f"\n→ {step.preview or step.call.name}", fg="cyan")
        elif isinstance(step, ConsentAsked):
            answer = ask_terminal(step.request)
            step.request.answer(answer)
            if isinstance(answer, Deny) and answer.reason == INTERRUPTED:
                cancel.cancel()  # Ctrl-C: this call is denied and the turn stops
        elif isinstance(step, CallMalformed):
            note = f"the model tried to call a tool but the call was not valid: {step.reason}"
            click.secho(f"\n  {summary(note)}", dim=True)
        elif isinstance(step, ToolRan):
            show_ran(step)
        elif isinstance(step, TurnFailed):
            click.secho(f"\nError: {step.error}", fg="red", err=True)
        elif isinstance(step, TurnDone):
            _finish(step, show_stats)
            _judge_speed(session, step, cpu)


def show_ran(ran: ToolRan) -> None:
    """What became of a call, and its result or error, each on one readable line."""
    if ran.outcome in ("denied", "invalid"):
        said = ran.ruling.sentence() or summary(ran.ruling.wording)
        click.secho(f"  {ran.outcome}: {said}", fg="yellow", dim=True)
        return
    colour = "green" if ran.outcome == "executed" else "yellow"
    decided = ran.ruling.sentence() or f"decided by {ran.ruling.by_whom()}"
    click.secho(f"  {ran.outcome}: {decided}", fg=colour, dim=True)
    if ran.ruling.reason is Reason.EDITED and ran.arguments is not None:
        click.secho(f"  ran with your edit: {summary(json.dumps(ran.arguments))}", dim=True)
    click.echo(f"  {summary(ran.result)}")


def summary(text: str) -> str:
    """`text` on one safe line, cut to about 200 characters."""
    line = safe_text(" ".join(text.split()))
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


def _finish(done: TurnDone, show_stats: bool) -> None:
    click.echo()
    if done.stop_reason == "cancelled":
        click.secho("(stopped)", dim=True, err=True)
    if show_stats:
        stats = done.stats
        click.secho(
            f"[{done.stop_reason}; {stats.steps} model call(s); tools offered "
            f"{stats.tools_offered}; prompt tokens {stats.prompt_tokens}; evaluated "
            f"{stats.evaluated_tokens}; wrote {sum(stats.completion_tokens)} tokens at "
            f"{stats.tokens_per_second:.1f} tokens/s]",
            dim=True,
            err=True,
        )


@click.command()
@click.argument("prompt")
@model_option
@think_option
@stats_option
@allow_option
@threads_option
@click.option("--max-tokens", default=512, show_default=True)
def ask(
    prompt: str,
    model_choice: str | None,
    think: bool,
    stats: bool,
    allow: tuple[str, ...],
    threads: int | None,
    max_tokens: int,
) -> None:
    """Ask one question and stream the answer."""
    assistant = Assistant(load_model(model_choice, n_ctx=4096, threads=threads))
    try:
        settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
        run_turn(open_session(assistant, allow, settings), prompt, stats)
    finally:
        assistant.close()


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
    model = load_model(model_choice, n_ctx=8192, threads=threads)
    assistant = Assistant(model)
    try:
        settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
        session = open_session(assistant, allow, settings)
        click.secho(f"{model.info.name} ready. Ctrl-C stops a reply.", dim=True)
        while True:
            try:
                text = click.prompt("you", prompt_suffix="> ").strip()
            except (EOFError, click.exceptions.Abort):
                click.echo()
                break
            if text in ("/quit", "/exit"):
                break
            if text:
                run_turn(session, text, stats)
    finally:
        assistant.close()


def _judge_speed(session: Session, done: TurnDone, cpu: CpuMeter) -> None:
    """Say so when this reply was far slower than this computer usually manages."""
    stats = done.stats
    report = SpeedHistory().check_reply(
        session.model,
        sum(stats.completion_tokens),
        sum(stats.decode_seconds),
        cpu.others_cores(),
    )
    advice = report.advice() if report else None
    if advice:
        click.secho(advice, fg="yellow", dim=True, err=True)
