"""`hearth models prompt`: what the tools may add to a prompt, and the kept prefix states."""

from __future__ import annotations

import click

from hearth import LIMITS, PREFIX_CACHE, TOOL_BUDGET, Models, save_setting, saved_setting, shown

STATE_FILES = "*.state"


@click.command("prompt")
@click.option(
    "--tool-budget",
    type=click.IntRange(*LIMITS[TOOL_BUDGET]),
    metavar="TOKENS",
    help="The most a turn's tools may add to the prompt (estimated tokens).",
)
@click.option(
    "--cache-size",
    type=click.IntRange(*LIMITS[PREFIX_CACHE]),
    metavar="MB",
    help="Disk kept for prompt prefixes' states (0 turns keeping them off).",
)
@click.option("--clear", is_flag=True, help="Delete every kept prefix state.")
def prompt_command(tool_budget: int | None, cache_size: int | None, clear: bool) -> None:
    """Show or set the tools' prompt budget and the prefix cache.

    A conversation starts with the system text and the tools it is offered; their model state
    is computed once and kept, so a new conversation loads it instead of reading them again.
    Settings apply to the next conversation (the cache size, to the next model load).
    """
    if tool_budget is not None:
        save_setting(TOOL_BUDGET, tool_budget)
    if cache_size is not None:
        save_setting(PREFIX_CACHE, cache_size)
    folder = Models().prompt_cache_folder()
    if clear:
        for path in folder.glob(STATE_FILES):
            path.unlink(missing_ok=True)
    files = [path.stat().st_size for path in folder.glob(STATE_FILES)] if folder.is_dir() else []
    click.echo(f"Tools' prompt budget: {saved_setting(TOOL_BUDGET)} tokens a turn (estimated).")
    size = saved_setting(PREFIX_CACHE)
    if size == 0:
        click.echo("Prefix cache: off; every new conversation reads its tools again.")
        return
    used = sum(files) / 2**20
    click.echo(
        f"Prefix cache: {len(files)} kept, {used:.0f} MB of {size} MB in {shown(str(folder))}"
    )
