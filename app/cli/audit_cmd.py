"""`hearth audit`: read and export the log of every tool call Hearth proposed."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import click

from hearth import (
    AuditEntry,
    AuditLog,
    Decider,
    Decision,
    ExportFormat,
    RuleBook,
    RuleTable,
    counted,
    open_database,
    shown,
)

_SUMMARY_WIDTH = 48
_HEADER = ("ID", "TIME", "CONV", "CALL", "TOOL", "DECISION", "BY", "OUTCOME", "MS", "RESULT")
# Narrowed in this order when the table is wider than the terminal, each down to its floor.
_SHRINK_ORDER = (("RESULT", 12), ("CALL", 8), ("TOOL", 10), ("BY", 12))
_GAP = "  "


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
        rules = RuleBook(RuleTable(db))
        rows = [_row(entry, rules) for entry in entries]
    if not rows:
        click.echo("The audit log has no matching entries.")
        return
    _echo_table([_HEADER, *rows])


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
    click.echo(f"Exported {counted(count, 'entry', 'entries')} to {output}", err=True)


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


def _row(entry: AuditEntry, rules: RuleBook) -> tuple[str, ...]:
    summary = " ".join(shown(entry.result_summary, lines=True).split())
    if len(summary) > _SUMMARY_WIDTH:
        summary = summary[: _SUMMARY_WIDTH - 1] + "…"
    cells = (
        str(entry.id),
        entry.at.astimezone().strftime("%Y-%m-%d %H:%M:%S"),
        "-" if entry.conversation_id is None else str(entry.conversation_id),
        entry.call_id,
        entry.tool,
        entry.decision,
        _decided_by(entry, rules),
        entry.outcome,
        "-" if entry.duration_ms is None else str(entry.duration_ms),
        summary,
    )
    # Tool names, call ids and rule wording can come from outside (an MCP server, the model).
    return tuple(shown(cell) for cell in cells)


def _decided_by(entry: AuditEntry, rules: RuleBook) -> str:
    """Who decided, naming a rule by what it allows or refuses, never by its id."""
    ruling = entry.ruling
    if ruling.rule_id is None or ruling.rule_text:
        return ruling.by_whom()
    rule = rules.get(ruling.rule_id)
    text = rule.describe() if rule is not None else "a rule since removed"
    return f"rule: {text}" if ruling.decider is Decider.RULE else f"you, new rule: {text}"


def _echo_table(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    # Piped output (no terminal, no COLUMNS) keeps every cell whole.
    columns = shutil.get_terminal_size(fallback=(0, 0)).columns
    widths = _fit(widths, columns) if columns else widths
    for row in rows:
        cells = (_cell(cell, width) for cell, width in zip(row, widths, strict=True))
        click.echo(_GAP.join(cells).rstrip())


def _fit(widths: list[int], limit: int) -> list[int]:
    """Narrow the least telling columns first until the table fits `limit`, if it can."""
    fitted = list(widths)
    excess = sum(fitted) + len(_GAP) * (len(fitted) - 1) - limit
    for name, floor in _SHRINK_ORDER:
        column = _HEADER.index(name)
        cut = max(0, min(excess, fitted[column] - floor))
        fitted[column] -= cut
        excess -= cut
    return fitted  # still too wide at the floors: the terminal wraps the rest


def _cell(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"
