"""`hearth plugins`: see which plugins load, turn them on and off, and start one of your own."""

from __future__ import annotations

from importlib.resources import files

import click

from hearth import (
    PluginInfo,
    ToolRegistry,
    disabled_plugins,
    entry_point_candidates,
    load_plugins,
    plugins_dir,
    set_plugin_disabled,
    shown,
    user_candidates,
)

EXAMPLE = "examples/notes.py"


@click.group("plugins", invoke_without_command=True)
@click.pass_context
def plugins(ctx: click.Context) -> None:
    """List, enable, disable and reload plugins, or start one of your own."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_plugins)


@plugins.command("list")
@click.option("--verbose", is_flag=True, help="Show the full traceback of each failed plugin.")
def list_plugins(verbose: bool = False) -> None:
    """Show each plugin: where it comes from, whether it loaded, and its tools."""
    show(load_plugins(ToolRegistry()).infos, verbose)
    click.echo(f"\nYour plugin files go in {plugins_dir()}")


@plugins.command("reload")
@click.option("--verbose", is_flag=True, help="Show the full traceback of each failed plugin.")
def reload(verbose: bool) -> None:
    """Load every plugin again and show how each one stands now."""
    show(load_plugins(ToolRegistry()).infos, verbose)
    click.echo("\nA running Hearth reloads your plugin files by itself when they change.")


@plugins.command("enable")
@click.argument("name")
def enable(name: str) -> None:
    """Turn the plugin NAME back on."""
    if name not in _known_names() and name not in disabled_plugins():
        raise click.ClickException(_unknown(name))
    set_plugin_disabled(name, False)
    click.echo(f"Turned on {shown(name)}; Hearth loads it from its next start.")


@plugins.command("disable")
@click.argument("name")
def disable(name: str) -> None:
    """Turn the plugin NAME off: Hearth no longer imports it."""
    if name not in _known_names():
        raise click.ClickException(_unknown(name))
    set_plugin_disabled(name, True)
    click.echo(f"Turned off {shown(name)}; `hearth plugins enable {shown(name)}` turns it back on.")


@plugins.command("folder")
def folder() -> None:
    """Print the folder your plugin files go in."""
    click.echo(str(plugins_dir()))


@plugins.command("example")
def example() -> None:
    """Print an example plugin to start from (a notes connector)."""
    click.echo(files("hearth.resources").joinpath(EXAMPLE).read_text(encoding="utf-8"), nl=False)


def show(infos: list[PluginInfo], verbose: bool) -> None:
    """One line per plugin; why a plugin failed or is off on the line below it.

    Names, tools and errors come from plugin files, so each is `shown`; a traceback keeps its
    lines."""
    if not infos:
        click.echo("No plugins.")
        return
    width = max(len(shown(info.name)) for info in infos)
    for info in infos:
        what = shown(", ".join(info.tools)) if info.tools else "-"
        state = click.style(f"{info.state:<8}", fg=_COLOURS[info.state])
        click.echo(f"{shown(info.name):<{width}}  {info.source:<8}  {state}  {what}")
        if info.error:
            click.echo(f"{'':<{width}}  {shown(info.error)}")
        if verbose and info.details:
            for line in shown(info.details.rstrip(), lines=True).split("\n"):
                click.echo(f"{'':<{width}}    {line}")


_COLOURS = {"loaded": "green", "failed": "red", "disabled": "yellow"}


def _known_names() -> set[str]:
    # Names only: a plugin being turned off may be the one that breaks when imported.
    return {candidate.name for candidate in (*entry_point_candidates(), *user_candidates())}


def _unknown(name: str) -> str:
    return f"There is no plugin called '{shown(name)}'; `hearth plugins list` shows them."
