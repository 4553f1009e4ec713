"""`hearth audit`: read and export the log of every tool call Hearth proposed."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import click

from hearth.store import AuditEntry, AuditLog, Decision, ExportFormat, open_database

_SUMMARY_WIDTH = 48
_HEADER = ("ID", "TIME", "CONV", "CALL", "TOOL", "DECISION", "BY", "OUTCOME", "MS", "RESULT")


@click.group("audit")
def audit() -> None:
    """Show and export the audit log of tool calls and consent decisions."""


@audit.command("list")
@click.option("--conversation", type=int, help="Only this conversation's calls.")
@click.option("--tool", help="Only calls of this tool.")
@click.option("--decision", type=click.Choice(["allow", "ask", "deny"]), help="Only these.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
def list_command(
    conversation: int | None, tool: str | None, decision: str | None, limit: int
) -> None:
    """Show the most recent entries as a table, oldest first."""
    with open_database() as db:
        entries = _read(AuditLog(db), conversation, tool, decision, limit)
    if not entries:
        click.echo("The audit log has no matching entries.")
        return
    _echo_table([_HEADER, *(_row(entry) for entry in entries)])


@audit.command("export")
@click.option("--format", "format_", type=click.Choice(["json", "csv"]), default="json")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--conversation", type=int, help="Only this conversation's calls.")
@click.option("--tool", help="Only calls of this tool.")
@click.option("--decision", type=click.Choice(["allow", "ask", "deny"]), help="Only these.")
def export_command(
    format_: str,
    output: Path | None,
    conversation: int | None,
    tool: str | None,
    decision: str | None,
) -> None:
    """Write the whole log (or the matching entries) as JSON or CSV, to a file or stdout."""
    with open_database() as db:
        log = AuditLog(db)
        entries = _read(log, conversation, tool, decision, None)
        if output is None:
            log.export(sys.stdout, cast(ExportFormat, format_), entries=entries)
            return
        # newline="": the csv module writes its own line endings.
        with output.open("w", encoding="utf-8", newline="") as fp:
            count = log.export(fp, cast(ExportFormat, format_), entries=entries)
    click.echo(f"Exported {count} entries to {output}", err=True)


def _read(
    log: AuditLog,
    conversation: int | None,
    tool: str | None,
    decision: str | None,
    limit: int | None,
) -> list[AuditEntry]:
    return log.entries(
        conversation_id=conversation,
        tool=tool,
        decision=cast(Decision | None, decision),
        limit=limit,
    )


def _row(entry: AuditEntry) -> tuple[str, ...]:
    summary = " ".join(entry.result_summary.split())
    if len(summary) > _SUMMARY_WIDTH:
        summary = summary[: _SUMMARY_WIDTH - 1] + "…"
    return (
        str(entry.id),
        entry.at.astimezone().strftime("%Y-%m-%d %H:%M:%S"),
        "-" if entry.conversation_id is None else str(entry.conversation_id),
        entry.call_id,
        entry.tool,
        entry.decision,
        entry.decided_by,
        entry.outcome,
        "-" if entry.duration_ms is None else str(entry.duration_ms),
        summary,
    )


def _echo_table(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        click.echo("  ".join(cells).rstrip())
