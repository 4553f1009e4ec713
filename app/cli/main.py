"""`hearth` entry point: no subcommand opens the desktop app; subcommands work headless.

Commands from plugins (e.g. `hearth files`) and the desktop front end are found through
entry points, so the core never imports `hearth.connectors` or `hearth.ui`.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import click

from hearth.cli.audit_cmd import audit
from hearth.cli.chat import ask, chat
from hearth.cli.models_cmd import models
from hearth.cli.undo_cmd import undo
from hearth.errors import HearthError
from hearth.plugins import load_plugins
from hearth.tools import ToolRegistry

FRONTENDS = "hearth.frontends"


class HearthGroup(click.Group):
    """Built-in commands plus those plugins register, loaded only when asked for."""

    _plugin_commands: dict[str, click.Command] | None = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._plugins()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) or self._plugins().get(name)

    def _plugins(self) -> dict[str, click.Command]:
        if self._plugin_commands is None:
            report = load_plugins(ToolRegistry())
            self._plugin_commands = {
                command.name: command
                for command in report.commands
                if command.name and command.name not in self.commands
            }
        return self._plugin_commands


@click.group(cls=HearthGroup, invoke_without_command=True)
@click.version_option(package_name="hearth")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Hearth, a private assistant that runs a small model on this computer."""
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


cli.add_command(ask)
cli.add_command(chat)
cli.add_command(models)
cli.add_command(audit)
cli.add_command(undo)


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
