"""`hearth` entry point: no subcommand opens the desktop app; subcommands work headless.

Built-in commands are imported only when one is run, so `hearth --help` loads neither the
engine, Qt nor the hub client. Commands from plugins (e.g. `hearth files`) and the desktop
front end are found through entry points, so the core never imports `hearth.connectors` or
`hearth.ui`.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from importlib.metadata import entry_points

import click

from hearth import DISABLE_ENV, HearthError, shown

FRONTENDS = "hearth.frontends"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
VERBOSE_HANDLER = "hearth-verbose"
# name -> ("module:attribute", short help). The short help is written here so that listing
# the commands imports none of them; a test checks it against each command's own.
BUILTIN_COMMANDS: dict[str, tuple[str, str]] = {
    "ask": ("hearth.cli.ask_cmd:ask", "Ask one question and stream the answer."),
    "audit": (
        "hearth.cli.audit_cmd:audit",
        "Show and export the audit log of tool calls and consent decisions.",
    ),
    "chat": ("hearth.cli.chat:chat", "Talk with Hearth in the terminal."),
    "models": (
        "hearth.cli.models_cmd:models",
        "List, download, import and check the models Hearth can run.",
    ),
    "passwords": (
        "hearth.cli.passwords_cmd:passwords",
        "Where Hearth keeps account passwords; make its own store where there is no keyring.",
    ),
    "plugins": (
        "hearth.cli.plugins_cmd:plugins",
        "List, enable, disable and reload plugins, or start one of your own.",
    ),
    "undo": ("hearth.cli.undo_cmd:undo", "Undo the last COUNT actions Hearth took, newest first."),
    "voice": (
        "hearth.cli.voice_cmd:voice",
        "Check voice input, download speech models, and transcribe speech.",
    ),
}


class HearthGroup(click.Group):
    """Built-in commands plus those plugins register, each loaded only when asked for."""

    _plugin_commands: dict[str, click.Command] | None = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*BUILTIN_COMMANDS, *super().list_commands(ctx), *self._plugins()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in BUILTIN_COMMANDS and name not in self.commands:
            self.add_command(_import_command(BUILTIN_COMMANDS[name][0]), name)
        return super().get_command(ctx, name) or self._plugins().get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, with built-ins' short help taken from the map, not an import."""
        limit = formatter.width - 6 - max(len(name) for name in self.list_commands(ctx))
        rows: list[tuple[str, str]] = []
        for name in self.list_commands(ctx):
            if name in BUILTIN_COMMANDS and name not in self.commands:
                rows.append((name, BUILTIN_COMMANDS[name][1]))
            elif (command := self.get_command(ctx, name)) and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _plugins(self) -> dict[str, click.Command]:
        if self._plugin_commands is None:
            from hearth import ToolRegistry, load_plugins

            report = load_plugins(ToolRegistry())
            self._plugin_commands = {
                command.name: command
                for command in report.commands
                if command.name and command.name not in BUILTIN_COMMANDS
            }
        return self._plugin_commands


def _import_command(target: str) -> click.Command:
    module, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module), attribute)
    assert isinstance(command, click.Command), target
    return command


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
