"""Hearth names for MCP servers and tools: `[a-z][a-z0-9_]*`, unique, mapped to the real ones."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable
from importlib.metadata import entry_points

PREFIX = "mcp_"
_NOT_ALLOWED = re.compile(r"[^a-z0-9_]+")
# Always taken, whatever is installed: the commands' own name and Hearth's own connectors.
_RESERVED = frozenset({"mcp", "files", "calendar", "mail", "system"})


def sanitized(name: str) -> str:
    """`name` lower-cased, with each run of other characters as one `_` ("Read-Note" ->
    "read_note"); prefixed with "mcp_" when it would not start with a letter."""
    clean = _NOT_ALLOWED.sub("_", name.lower()).strip("_")
    clean = re.sub(r"_+", "_", clean)
    return clean if clean[:1].isalpha() and clean.isascii() else f"{PREFIX}{clean}".rstrip("_")


def file_stem(server: str) -> str:
    """A file name for the server's own files (its log, its tools): "Notes" and "notes" differ."""
    name = sanitized(server)
    if name != server:
        name += "-" + hashlib.sha256(server.encode()).hexdigest()[:8]
    return name


def unique(name: str, taken: Collection[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... : the first one not in `taken`."""
    if name not in taken:
        return name
    number = 2
    while f"{name}_{number}" in taken:
        number += 1
    return f"{name}_{number}"


def builtin_connector_names() -> frozenset[str]:
    """Names an MCP server's connector must not take: Hearth's and installed plugins'."""
    installed = {point.name for point in entry_points(group="hearth.plugins")}
    return _RESERVED | installed


def connector_names(servers: Iterable[str], builtin: Collection[str]) -> dict[str, str]:
    """Each server's connector name: sanitized, "mcp_" before a built-in name, then unique."""
    chosen: dict[str, str] = {}
    for server in servers:
        name = sanitized(server)
        if name in builtin:
            name = f"{PREFIX}{name}"
        chosen[server] = unique(name, {*chosen.values(), *builtin})
    return chosen
