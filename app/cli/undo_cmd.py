"""`hearth undo`: revert the most recent reversible actions (moves, trash, writes, ...)."""

from __future__ import annotations

import click

from hearth import Assistant, UndoFailed, shown

# Entries of calls that stopped half-way: undo puts back the items they journaled.
_STATE_NOTES = {"partial": "  (partly done)", "unknown": "  (interrupted)"}


@click.command("undo")
@click.argument("count", type=click.IntRange(min=1), default=1)
@click.option("--list", "show", is_flag=True, help="Only show what could be undone.")
def undo(count: int, show: bool) -> None:
    """Undo the last COUNT actions Hearth took, newest first."""
    assistant = Assistant.open(start_connectors=False)
    try:
        pending = assistant.undoable(count if not show else None)
        if not pending:
            click.echo("Nothing to undo.")
            return
        if show:
            for entry in pending:
                when = entry.done_at.astimezone().strftime("%Y-%m-%d %H:%M")
                note = _STATE_NOTES.get(entry.state, "")
                click.echo(f"{when}  {shown(entry.tool):<20} {_first_line(entry.summary)}{note}")
            return
        for entry in pending:
            try:
                done = assistant.undo(entry.call_id)
            except UndoFailed as error:
                click.secho(f"Not undone: {shown(str(error))}", fg="red", err=True)
                raise SystemExit(1) from None
            click.echo(f"Undone: {_first_line(entry.summary)} ({shown(done.summary)})")
    finally:
        assistant.close()


def _first_line(summary: str) -> str:
    """A summary's first line, shown: it may name files, mail or events from outside."""
    return shown(summary.split("\n", 1)[0])
