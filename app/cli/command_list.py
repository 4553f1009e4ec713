"""The `hearth` group's commands, each imported only when it runs.

`hearth --help` names every command with its short help, and imports none of them: the
built-in commands' help and that of the commands Hearth's own plugins add are written here
(tests/app/cli/test_command_list.py checks both against the commands themselves). Running a
plugin's command loads that one plugin. Only when a third-party plugin is installed (a package
or a file in the plugins folder) does naming the commands load every plugin, since nothing
else says what such a plugin adds.
"""

from __future__ import annotations

import importlib

import click

from hearth import disabled_plugins, entry_point_candidates, shown, user_candidates

# name -> ("module:attribute", short help).
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
# name -> (the plugin of Hearth's own that adds it, its short help).
OWN_PLUGIN_COMMANDS: dict[str, tuple[str, str]] = {
    "calendar": ("calendar", "Calendar files and CalDAV accounts, their sync, and their events."),
    "eval": (
        "evaluation",
        "Score Hearth on scenarios over real loopback servers, judged by what changed.",
    ),
    "files": ("files", "Folders Hearth may see, and their search index."),
    "mail": ("mail", "Your mail account, its sync and its outbox."),
    "mcp": ("mcp", "MCP servers: third-party tools Hearth can call, always asking first."),
    "system": (
        "system",
        "Wi-Fi, volume, brightness, do-not-disturb and the battery: each backend here.",
    ),
}


class PluginCommands:
    """The commands plugins add, as this run sees them (the user's plugins folder and the
    plugins turned off are read once)."""

    def __init__(self) -> None:
        off = disabled_plugins()
        points = [c for c in entry_point_candidates() if c.name not in off]
        own = {c.name for c in points if c.source == "built-in"}
        self._own = {name: entry for name, entry in OWN_PLUGIN_COMMANDS.items() if entry[0] in own}
        others = [
            c
            for c in (*points, *user_candidates())
            if c.source != "built-in" and not c.blocked and c.name not in off
        ]
        self._loaded: dict[str, click.Command] = {}
        self._everything_loaded = not others

    def short_helps(self) -> dict[str, str | None]:
        """Every plugin command by name: its short help when known without loading it."""
        if not self._everything_loaded:
            self._load()
        known: dict[str, str | None] = dict.fromkeys(self._loaded)
        known.update((name, text) for name, (_plugin, text) in self._own.items())
        return known

    def is_loaded(self, name: str) -> bool:
        return name in self._loaded

    def get(self, name: str) -> click.Command | None:
        """The command `name`, its plugin loaded now; None when no plugin adds it."""
        if name not in self._loaded and name in self._own:
            plugin = self._own[name][0]
            failures = self._load(only=[plugin])
            if name not in self._loaded:
                why = failures.get(plugin, "it did not add the command")
                raise click.ClickException(f"`hearth {name}` cannot run: plugin {plugin}: {why}")
        elif name not in self._loaded and not self._everything_loaded:
            self._load()
        return self._loaded.get(name)

    def _load(self, only: list[str] | None = None) -> dict[str, str]:
        """Load the plugins (`only` these), keep their commands; what failed, by plugin."""
        from hearth import ToolRegistry, load_plugins  # the tool machinery: only to load one

        report = load_plugins(ToolRegistry(), only=only)
        for command in report.commands:
            if command.name and command.name not in BUILTIN_COMMANDS:
                self._loaded.setdefault(command.name, command)
        self._everything_loaded = self._everything_loaded or only is None
        return {failure.plugin: shown(failure.error) for failure in report.failed}


class HearthGroup(click.Group):
    """Built-in commands plus those plugins register, each loaded only when asked for."""

    # Made on first use; tests set it back to None for a Hearth home of their own.
    _plugin_commands: PluginCommands | None = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = {*BUILTIN_COMMANDS, *super().list_commands(ctx), *self._plugins().short_helps()}
        return sorted(names)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in BUILTIN_COMMANDS and name not in self.commands:
            self.add_command(_import_command(BUILTIN_COMMANDS[name][0]), name)
        return super().get_command(ctx, name) or self._plugins().get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, with the short help written here wherever a command is not loaded."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        plugins = self._plugins()
        written = plugins.short_helps()
        rows: list[tuple[str, str]] = []
        for name in names:
            if name in BUILTIN_COMMANDS and name not in self.commands:
                rows.append((name, BUILTIN_COMMANDS[name][1]))
            elif written.get(name) is not None and not plugins.is_loaded(name):
                # Shortened as click shortens a command's own help, with nothing imported.
                stand_in = click.Command(name, help=written[name])
                rows.append((name, stand_in.get_short_help_str(limit)))
            elif (command := self.get_command(ctx, name)) and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _plugins(self) -> PluginCommands:
        if self._plugin_commands is None:
            self._plugin_commands = PluginCommands()
        return self._plugin_commands


def _import_command(target: str) -> click.Command:
    module, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module), attribute)
    assert isinstance(command, click.Command), target
    return command
