"""`hearth ask` and `hearth chat`: stream answers in the terminal, reasoning dimmed."""

from __future__ import annotations

from pathlib import Path

import click

from hearth.cli.worker import stream_on_worker
from hearth.engine.llama import LlamaCppModel
from hearth.engine.sampling import Sampling
from hearth.engine.types import (
    AnswerDelta,
    CancelToken,
    ChatModel,
    GenerationDone,
    GenerationSettings,
    MalformedToolCall,
    Message,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.models.lookup import installed_models, resolve_model

SYSTEM_PROMPT = "You are Hearth, a helpful private assistant running on the user's computer."

model_option = click.option(
    "--model", "model_choice", metavar="ID|FILE", help="Catalog id or path to a .gguf file."
)
think_option = click.option(
    "--think/--no-think", default=True, help="Let the model reason before answering."
)
stats_option = click.option("--stats", is_flag=True, help="Print token counts and speed.")


def load_model(choice: str | None, n_ctx: int) -> ChatModel:
    path: Path = resolve_model(choice)
    click.secho(f"Loading {path.name}…", dim=True, err=True)
    return LlamaCppModel(path, n_ctx=n_ctx, sampling=model_card_sampling(path))


def model_card_sampling(path: Path) -> Sampling:
    """The catalog's recommended sampling for this file, if it is a catalog model."""
    for installed in installed_models():
        if installed.entry is not None and installed.path.resolve() == path.resolve():
            return Sampling().with_gguf(installed.entry.sampling)
    return Sampling()


def stream_reply(
    model: ChatModel, history: list[Message], settings: GenerationSettings, show_stats: bool
) -> Message:
    """Print one reply as it streams and return it for the history."""
    cancel = CancelToken()
    reply = Message.assistant()
    in_reasoning = False
    events = stream_on_worker(lambda: model.generate(history, (), settings, cancel), cancel)
    for event in events:
        if isinstance(event, ReasoningDelta):
            if not in_reasoning:
                click.secho("thinking: ", dim=True, nl=False)
                in_reasoning = True
            click.secho(event.text, dim=True, nl=False)
        elif isinstance(event, AnswerDelta):
            if in_reasoning:
                click.echo("\n")
                in_reasoning = False
            click.echo(event.text, nl=False)
        elif isinstance(event, ToolCallEmitted | MalformedToolCall):
            click.secho(f"\n[tool call: {event}]", fg="yellow")
        elif isinstance(event, GenerationDone):
            reply = event.message
            click.echo()
            if event.stop_reason == "cancelled":
                click.secho("(stopped)", dim=True, err=True)
            if show_stats:
                stats = event.stats
                click.secho(
                    f"[{event.stop_reason}; prompt {stats.prompt_tokens} tok, evaluated "
                    f"{stats.evaluated_tokens}, generated {stats.completion_tokens} at "
                    f"{stats.decode_tokens_per_second:.1f} tok/s]",
                    dim=True,
                    err=True,
                )
    return reply


@click.command()
@click.argument("prompt")
@model_option
@think_option
@stats_option
@click.option("--max-tokens", default=512, show_default=True)
def ask(prompt: str, model_choice: str | None, think: bool, stats: bool, max_tokens: int) -> None:
    """Ask one question and stream the answer."""
    model = load_model(model_choice, n_ctx=4096)
    try:
        settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
        history = [Message.system(SYSTEM_PROMPT), Message.user(prompt)]
        stream_reply(model, history, settings, stats)
    finally:
        model.close()


@click.command()
@model_option
@think_option
@stats_option
@click.option("--max-tokens", default=1024, show_default=True)
def chat(model_choice: str | None, think: bool, stats: bool, max_tokens: int) -> None:
    """Talk with the model in the terminal. Ctrl-C stops a reply; Ctrl-D or /quit leaves."""
    model = load_model(model_choice, n_ctx=8192)
    settings = GenerationSettings(max_tokens=max_tokens, enable_thinking=think)
    history = [Message.system(SYSTEM_PROMPT)]
    click.secho(f"{model.info.name} ready. Ctrl-C stops a reply, Ctrl-D quits.", dim=True)
    try:
        while True:
            try:
                text = click.prompt("you", prompt_suffix="> ").strip()
            except (EOFError, click.exceptions.Abort):
                click.echo()
                break
            if text in ("/quit", "/exit"):
                break
            if not text:
                continue
            history.append(Message.user(text))
            history.append(stream_reply(model, history, settings, stats))
    finally:
        model.close()
