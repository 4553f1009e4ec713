"""`hearth undo`: revert the most recent reversible actions (moves, trash, writes, ...)."""

from __future__ import annotations

import click

from hearth.assistant import Assistant
from hearth.errors import UndoFailed

# Entries of calls that stopped half-way: undo puts back the items they journaled.
_STATE_NOTES = {"partial": "  (partly done)", "unknown": "  (interrupted)"}


@click.command("undo")
@click.argument("count", type=click.IntRange(min=1), default=1)
@click.option("--list", "show", is_flag=True, help="Only show what could be undone.")
def undo(count: int, show: bool) -> None:
    """Undo the last COUNT actions Hearth took, newest first."""
    assistant = Assistant(start_connectors=False)
    try:
        pending = assistant.undoable(count if not show else None)
        if not pending:
            click.echo("Nothing to undo.")
            return
        if show:
            for entry in pending:
                when = entry.done_at.astimezone().strftime("%Y-%m-%d %H:%M")
                note = _STATE_NOTES.get(entry.state, "")
                click.echo(f"{when}  {entry.tool:<20} {entry.summary.splitlines()[0]}{note}")
            return
        for entry in pending:
            try:
                done = assistant.undo(entry.call_id)
            except UndoFailed as error:
                click.secho(f"Not undone: {error}", fg="red", err=True)
                raise SystemExit(1) from None
            click.echo(f"Undone: {entry.summary.splitlines()[0]} ({done.summary})")
    finally:
        assistant.close()
