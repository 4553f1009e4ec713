"""`mcp.json`: the MCP servers Hearth starts, in the Claude Desktop format, kept losslessly.

`{"mcpServers": {"name": {"command": ..., "args": [...], "env": {...}} | {"url": ...}}}`.
Keys Hearth does not know (here or in a server's entry) are kept as they were; a file that does
not validate is never overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import pydantic

from hearth import HearthError, config_dir, write_json_atomically

FILE_NAME = "mcp.json"
SERVERS_KEY = "mcpServers"
DEFAULT_CALL_TIMEOUT = 60.0
# A server answers its first request within this, or counts as not answering (and is tried
# again later); `npx -y` fetching a package on its first start may need "connectTimeout".
DEFAULT_CONNECT_TIMEOUT = 10.0


class McpConfigError(HearthError):
    """The MCP configuration cannot be read or changed as asked; the message says how to fix it."""


class ServerConfig(pydantic.BaseModel):
    """One MCP server: a command to run (stdio) or a URL (streamable HTTP)."""

    model_config = pydantic.ConfigDict(extra="allow", populate_by_name=True)

    command: str | None = pydantic.Field(default=None, min_length=1)
    args: list[str] = pydantic.Field(default_factory=list)
    env: dict[str, str] = pydantic.Field(default_factory=dict)
    url: str | None = pydantic.Field(default=None, pattern=r"^https?://\S+$")
    timeout: float | None = pydantic.Field(default=None, gt=0, le=3600)
    connect_timeout: float | None = pydantic.Field(
        default=None, gt=0, le=600, alias="connectTimeout"
    )

    @pydantic.model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError('give either "command" (a program to run) or "url", not both')
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    @property
    def call_timeout(self) -> float:
        return self.timeout or DEFAULT_CALL_TIMEOUT

    @property
    def start_timeout(self) -> float:
        """Seconds the server has to start and answer its first request."""
        return self.connect_timeout or DEFAULT_CONNECT_TIMEOUT

    def fingerprint(self) -> str:
        """What tells this server apart from another: its command, arguments, environment or
        URL (hashed: the environment may hold a key)."""
        what = {"command": self.command, "args": self.args, "env": self.env, "url": self.url}
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()

    def where(self) -> str:
        """The command line or URL, for people to read."""
        if self.url is not None:
            return self.url
        return " ".join([self.command or "", *self.args])


class McpConfig(pydantic.BaseModel):
    """The whole file: the servers, and any other keys it had."""

    model_config = pydantic.ConfigDict(extra="allow", populate_by_name=True)

    servers: dict[str, ServerConfig] = pydantic.Field(default_factory=dict, alias="mcpServers")

    def as_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True) | {
            SERVERS_KEY: {
                name: server.model_dump(mode="json", by_alias=True, exclude_unset=True)
                for name, server in self.servers.items()
            }
        }


def config_path() -> Path:
    """Where `mcp.json` lives: in Hearth's config folder."""
    return config_dir() / FILE_NAME


def load(path: Path | None = None) -> McpConfig:
    """The configuration in `path` (default: `mcp.json`); empty when there is no file."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return McpConfig()
    except OSError as error:
        raise McpConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    return parse(text, path)


def parse(text: str, path: Path) -> McpConfig:
    """Validate `text` as an MCP configuration; errors name the file, the server and the field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise McpConfigError(
            f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "fix the file or remove it"
        ) from None
    if not isinstance(data, Mapping):
        raise McpConfigError(f'{path}: expected a JSON object like {{"{SERVERS_KEY}": {{...}}}}')
    try:
        return McpConfig.model_validate(data)
    except pydantic.ValidationError as error:
        raise McpConfigError(f"{path}: {_problem(error)}") from None


def save(config: McpConfig, path: Path | None = None) -> None:
    """Write the configuration atomically: a temp file beside it, flushed, then renamed over."""
    write_json_atomically(path or config_path(), config.as_json())


def add_server(name: str, server: ServerConfig, *, replace: bool = False) -> None:
    """Add one server to `mcp.json`; an existing name is refused unless `replace`."""
    merge({name: server}, replace=replace)


def remove_server(name: str) -> None:
    """Remove one server from `mcp.json`."""
    config = load()
    if name not in config.servers:
        raise McpConfigError(f"there is no MCP server named {name!r} (see `hearth mcp list`)")
    del config.servers[name]
    save(config)


def import_file(source: Path, *, replace: bool = False) -> list[str]:
    """Merge the servers of a Claude Desktop config file into `mcp.json`; their names."""
    if not source.is_file():
        raise McpConfigError(f"{source}: no such file")
    servers = load(source).servers
    if not servers:
        raise McpConfigError(f'{source}: has no "{SERVERS_KEY}" to import')
    merge(servers, replace=replace)
    return list(servers)


def merge(servers: Mapping[str, ServerConfig], *, replace: bool) -> None:
    """Add `servers` to `mcp.json`, all or none; a name clash is refused unless `replace`."""
    blank = [name for name in servers if not name.strip()]
    if blank:
        raise McpConfigError("an MCP server needs a name")
    config = load()
    clashes = sorted(set(servers) & set(config.servers))
    if clashes and not replace:
        raise McpConfigError(
            f"already configured: {', '.join(clashes)}; remove them first or use --replace"
        )
    config.servers.update(servers)
    save(config)


def _problem(error: pydantic.ValidationError) -> str:
    first = error.errors()[0]
    where = [str(part) for part in first["loc"]]
    if where[:1] == [SERVERS_KEY] and len(where) > 1:
        field = ".".join(where[2:])
        place = f"server {where[1]!r}" + (f", {field}" if field else "")
    else:
        place = ".".join(where) or "the file"
    message = str(first["msg"]).removeprefix("Value error, ")
    more = error.error_count() - 1
    return f"{place}: {message}" + (f" (and {more} more problems)" if more > 0 else "")
