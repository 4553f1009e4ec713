"""What the terminal says when a turn ends: that it stopped, its numbers in words, and a word
when the reply was far slower than usual."""

from __future__ import annotations

import click

from hearth import AgentSession, CpuMeter, Models, TurnDone

# Why the last model call ended, as the stats line says it; "end" and "tool_calls" are the
# usual ways and go unsaid.
_ENDINGS = {
    "max_tokens": "cut at the length limit",
    "cancelled": "stopped by you",
    "repetition": "stopped: it repeated itself",
    "context_full": "stopped: the conversation is full",
    "stopped": "Hearth stopped it",
}


def say_turn_ended(session: AgentSession, done: TurnDone, cpu: CpuMeter, show_stats: bool) -> None:
    click.echo()
    if done.stop_reason == "cancelled":
        click.secho("(stopped)", dim=True, err=True)
    if show_stats:
        click.secho(stats_line(done), dim=True, err=True)
    _judge_speed(session, done, cpu)


def stats_line(done: TurnDone) -> str:
    """The turn's numbers in a user's words, e.g. "1 model call · 5 tools offered ·
    640 prompt tokens read, 120 reused · 12 tokens written at 30.1 tokens/s"."""
    stats = done.stats
    parts = [_count(stats.steps, "model call")]
    if stats.tools_offered:
        # The set offered only grows during a turn: its last size is the most it reached.
        parts.append(_count(stats.tools_offered[-1], "tool") + " offered")
    parts.append(_prompt_words(sum(stats.evaluated_tokens), sum(stats.prompt_tokens)))
    written = _count(sum(stats.completion_tokens), "token") + " written"
    if stats.tokens_per_second > 0:
        written += f" at {stats.tokens_per_second:.1f} tokens/s"
    parts.append(written)
    ending = _ENDINGS.get(done.stop_reason)
    return " · ".join([*parts, *([ending] if ending else [])])


def _prompt_words(read: int, prompt: int) -> str:
    """How much of the prompt the model read anew, and how much it kept from before."""
    reused = max(0, prompt - read)
    words = _count(read, "prompt token") + " read"
    return f"{words}, {reused:,} reused" if reused else words


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _judge_speed(session: AgentSession, done: TurnDone, cpu: CpuMeter) -> None:
    """Say so when this reply was far slower than this computer usually manages."""
    stats = done.stats
    report = Models().speeds.check_reply(
        session.model,
        sum(stats.completion_tokens),
        sum(stats.decode_seconds),
        cpu.others_cores(),
    )
    advice = report.advice() if report else None
    if advice:
        click.secho(advice, fg="yellow", dim=True, err=True)
