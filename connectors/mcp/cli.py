"""`hearth mcp`: list, add, remove and import MCP servers, and see what tools they claim."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from hearth import HearthError, counted, safe_mode, shown
from hearth.connectors.mcp import config as settings
from hearth.connectors.mcp.config import ServerConfig

if TYPE_CHECKING:
    from hearth.connectors.mcp.connector import McpServerConnector

_T = TypeVar("_T")
SAFE_MODE_NOTE = "not started: safe mode (--no-plugins) runs no MCP servers"


def mcp_commands() -> click.Group:
    """`hearth mcp` and its subcommands."""
    return click.Group(
        "mcp",
        commands=[list_servers, add, remove, import_servers, tools],
        help="MCP servers: third-party tools Hearth can call, always asking first.",
    )


@click.command("list")
def list_servers() -> None:
    """Each server: its transport, whether it answers, and its tools."""
    servers = _run(lambda: settings.load().servers)
    if not servers:
        click.echo(f"No MCP servers. Add one with `hearth mcp add`; they live in {_path()}.")
        return
    with _connected(servers) as found:
        # Names, commands and URLs may come from an imported file; problems and tools from
        # the server: every one is shown.
        for name, server in servers.items():
            click.echo(f"{shown(name)}  [{server.transport}] {shown(server.where())}")
            item = found.get(name)
            if item is None:
                click.echo(f"  {SAFE_MODE_NOTE}")
            elif item.upkeep.state.phase != "ready":
                # This command tries once: the retry the state would promise never comes.
                click.echo(f"  {shown(replace(item.upkeep.state, retry_at=None).line())}")
            else:
                _echo_tools(item)


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", default=None, help="A streamable HTTP server instead of a command.")
@click.option("--env", "env", multiple=True, metavar="KEY=VALUE", help="For the command.")
@click.option("--timeout", type=float, default=None, help="Seconds a call may take (60).")
@click.option(
    "--connect-timeout", type=float, default=None, help="Seconds it may take to start (10)."
)
@click.option("--replace", is_flag=True, help="Replace a server of the same name.")
def add(
    name: str,
    command: tuple[str, ...],
    url: str | None,
    env: tuple[str, ...],
    timeout: float | None,
    connect_timeout: float | None,
    replace: bool,
) -> None:
    """Add the server NAME: `add NAME -- COMMAND [ARGS...]` or `add NAME --url URL`."""
    if bool(command) == bool(url):
        raise click.UsageError("give a command after `--` or --url, one of the two")
    fields: dict[str, object] = {"url": url} if url else {"command": command[0]}
    if command[1:]:
        fields["args"] = list(command[1:])
    if env:
        fields["env"] = dict(_pair(item) for item in env)
    if timeout is not None:
        fields["timeout"] = timeout
    if connect_timeout is not None:
        fields["connectTimeout"] = connect_timeout
    try:
        server = ServerConfig.model_validate(fields)
    except ValueError as error:
        raise click.UsageError(str(error).splitlines()[-1].strip()) from None
    _run(lambda: settings.add_server(name, server, replace=replace))
    click.echo(f"Added the MCP server '{shown(name)}'; Hearth starts it the next time it opens.")


@click.command()
@click.argument("name")
def remove(name: str) -> None:
    """Remove the server NAME."""
    _run(lambda: settings.remove_server(name))
    click.echo(f"Removed the MCP server '{shown(name)}'.")


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Replace servers that have the same names.")
def import_servers(file: Path, replace: bool) -> None:
    """Add the servers of a Claude Desktop config FILE (its "mcpServers")."""
    names = _run(lambda: settings.import_file(file, replace=replace))
    click.echo(f"Imported {len(names)} MCP servers: {', '.join(shown(name) for name in names)}.")


@click.command()
@click.argument("name")
def tools(name: str) -> None:
    """The tools of the server NAME, with what the server claims about each (unchecked)."""
    server = _run(lambda: settings.load().servers.get(name))
    if server is None:
        raise click.ClickException(
            f"there is no MCP server named '{shown(name)}' (see `hearth mcp list`)"
        )
    with _connected({name: server}) as found:
        item = found.get(name)
        if item is None:
            raise click.ClickException(SAFE_MODE_NOTE)
        if item.upkeep.state.phase != "ready":
            raise click.ClickException(shown(item.upkeep.state.problem or item.upkeep.state.line()))
        from hearth.connectors.mcp.tools import claims, left_out

        why_left_out = {skipped.name: skipped.reason for skipped in left_out(list(item.listed))}
        for listed in item.listed:
            said = claims(listed.annotations)
            click.echo(f"{shown(listed.name)}: {shown((listed.description or '').strip())}")
            click.echo(f"  claims: {said + ' (not checked by Hearth)' if said else 'none'}")
            if listed.name in why_left_out:
                click.echo(f"  left out: {shown(why_left_out[listed.name])}")


def _echo_tools(found: McpServerConnector) -> None:
    """The tools Hearth offers the model from a connected server, then those it leaves out."""
    from hearth.connectors.mcp.tools import left_out

    skipped = left_out(list(found.listed))
    names = {item.name for item in skipped}
    offered = [shown(tool.name) for tool in found.listed if tool.name not in names]
    click.echo(f"  ready, {counted(len(offered), 'tool')}: {', '.join(offered) or 'none'}")
    for item in skipped:
        click.echo(f"  left out: {shown(item.name)}: {shown(item.reason)}")


@contextmanager
def _connected(servers: dict[str, ServerConfig]) -> Iterator[dict[str, McpServerConnector]]:
    """Each server once it answered or failed once (none in safe mode: nothing starts); every
    server is stopped afterwards. These commands are about the servers, so they wait on them."""
    if safe_mode():
        yield {}
        return
    # Imported here: every `hearth` command registers these commands, servers or not.
    from hearth.connectors.mcp.config import McpConfig
    from hearth.connectors.mcp.connector import server_connectors
    from hearth.connectors.mcp.runtime import McpRuntime

    runtime = McpRuntime()
    try:
        connectors = server_connectors(McpConfig(mcpServers=servers), runtime, ())
        yield {connector.link.name: connector for connector in connectors}
    finally:
        runtime.stop()


def _pair(item: str) -> tuple[str, str]:
    key, equals, value = item.partition("=")
    if not equals or not key:
        raise click.UsageError(f"--env takes KEY=VALUE, not '{shown(item)}'")
    return key, value


def _path() -> Path:
    return settings.config_path()


def _run(work: Callable[[], _T]) -> _T:
    try:
        return work()
    except HearthError as error:
        raise click.ClickException(shown(str(error))) from None
