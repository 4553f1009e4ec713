"""`hearth` entry point: no subcommand opens the desktop app; subcommands work headless."""

from __future__ import annotations

import sys

import click

from hearth.cli.audit_cmd import audit
from hearth.cli.chat import ask, chat
from hearth.cli.models_cmd import models
from hearth.errors import HearthError


@click.group(invoke_without_command=True)
@click.version_option(package_name="hearth")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Hearth, a private assistant that runs a small model on this computer."""
    if ctx.invoked_subcommand is None:
        launch_desktop(ctx)


def launch_desktop(ctx: click.Context) -> None:
    click.echo(
        "The Hearth desktop window is not part of this build yet.\n"
        'Use the terminal instead:  hearth chat   (or  hearth ask "...")\n'
        "Models:                    hearth models list",
        err=True,
    )


cli.add_command(ask)
cli.add_command(chat)
cli.add_command(models)
cli.add_command(audit)


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
        click.secho(f"Error: {exc}", fg="red", err=True)
        sys.exit(1)
