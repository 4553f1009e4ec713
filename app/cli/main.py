"""`hearth` entry point: no subcommand opens the desktop app; subcommands work headless.

Every command is imported only when it runs (see `hearth.cli.command_list`), so `hearth --help`
loads no command, no plugin, and neither the engine, Qt nor the hub client. Commands from
plugins (e.g. `hearth files`) and the desktop front end are found through entry points, so the
core never imports `hearth.connectors` or `hearth.ui`.
"""

from __future__ import annotations

import logging
import os
import sys
from importlib.metadata import entry_points

import click

from hearth import DISABLE_ENV, HearthError, shown
from hearth.cli.command_list import HearthGroup

FRONTENDS = "hearth.frontends"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
VERBOSE_HANDLER = "hearth-verbose"


def show_logs(verbose: bool) -> None:
    """With --verbose, Hearth's own DEBUG and INFO logs go to stderr; otherwise they stay quiet."""
    logger = logging.getLogger("hearth")
    if not verbose or any(h.name == VERBOSE_HANDLER for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.name = VERBOSE_HANDLER
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)


def _safe_mode(ctx: click.Context, parameter: click.Parameter, chosen: bool) -> bool:
    # Eager, so it holds before any command (a plugin's, too) is looked up or loaded, and the
    # desktop app and its worker threads inherit it through the environment.
    if chosen:
        os.environ[DISABLE_ENV] = "1"
    return chosen


@click.group(cls=HearthGroup, invoke_without_command=True)
@click.version_option(package_name="hearth")
@click.option("--verbose", is_flag=True, help="Show Hearth's debug log (llama.cpp's too).")
@click.option(
    "--no-plugins",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_safe_mode,
    help="Safe mode: start without third-party code (plugin packages, your plugin files, MCP "
    "servers); only what ships with Hearth.",
)
@click.option(
    "--selftest",
    is_flag=True,
    is_eager=True,
    hidden=True,
    help="Check this install offline (model, llama.cpp, one tool call) and print JSON.",
)
@click.option("--model", "model_choice", hidden=True, help="The model --selftest loads.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool, selftest: bool, model_choice: str | None) -> None:
    """Hearth, a private assistant that runs a small model on this computer."""
    show_logs(verbose)
    # A locked password store is opened by asking here, on the terminal, when a command first
    # needs a password; imported here so `hearth --help` stays light.
    from hearth import ask_store_password, use_password_prompt

    use_password_prompt(ask_store_password)
    if selftest:
        # Imported here: the self-test loads the model stack, which --help must not.
        from hearth.cli.selftest import selftest_command

        selftest_command(model_choice)
        sys.exit(0)
    if model_choice is not None:
        raise click.UsageError("--model before a command only works with --selftest.")
    if ctx.invoked_subcommand is None:
        sys.exit(launch_desktop())


def launch_desktop() -> int:
    found = entry_points(group=FRONTENDS, name="desktop")
    if not found:
        raise click.ClickException(
            "The desktop app is not installed. Install it with  pip install 'hearth[ui]'  or "
            'use the terminal:  hearth chat   (or  hearth ask "...")'
        )
    try:
        start = next(iter(found)).load()
    except ImportError as error:
        raise click.ClickException(
            f"The desktop app cannot start: {error}. Reinstall it with  pip install 'hearth[ui]'"
        ) from None
    return int(start() or 0)


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except HearthError as exc:
        click.secho(f"Error: {shown(str(exc))}", fg="red", err=True)  # may name outside things
        sys.exit(1)
