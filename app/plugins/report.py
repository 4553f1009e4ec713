"""What loading plugins found: one `PluginInfo` per plugin, and the parts each one brought.

`PluginReport` is kept current while plugins are turned on, off and reloaded; its older
per-state lists (`loaded`, `failed`, `disabled`) follow its `infos`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import click

from hearth.plugins.connector import Connector
from hearth.plugins.sources import Candidate, Source

State = Literal["loaded", "failed", "disabled"]


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that was skipped, and why, in words a user can pass on to its author."""

    plugin: str
    error: str


@dataclass(frozen=True)
class PluginInfo:
    """One plugin as a person sees it: where it comes from, whether it runs, what it offers.

    `error` is one line (why it failed, or why it is off); `details` the full traceback of a
    failure; `location` the file of a user plugin, or `module:attr` of the others.
    """

    name: str
    source: Source
    state: State
    tools: tuple[str, ...] = ()
    connectors: tuple[str, ...] = ()
    error: str = ""
    details: str = ""
    location: str = ""


@dataclass
class Parts:
    """The connectors and commands one loaded plugin brought."""

    connectors: list[Connector]
    commands: list[click.Command]


@dataclass
class PluginReport:
    """What loading did: plugins loaded, failed and left disabled; connectors found; and, per
    plugin, a `PluginInfo` in `infos` (kept current as plugins are turned on, off and reloaded).
    """

    loaded: list[str] = field(default_factory=list)
    failed: list[PluginFailure] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    connectors: list[Connector] = field(default_factory=list)
    commands: list[click.Command] = field(default_factory=list)
    infos: list[PluginInfo] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list, repr=False)
    parts: dict[str, Parts] = field(default_factory=dict, repr=False)

    def connector(self, name: str) -> Connector | None:
        return next((c for c in self.connectors if c.name == name), None)

    def info(self, name: str) -> PluginInfo | None:
        return next((info for info in self.infos if info.name == name), None)

    def candidate(self, name: str) -> Candidate | None:
        return next((c for c in self.candidates if c.name == name), None)

    def adopt(self, found: PluginReport) -> None:
        """Take on what another load found, in place: whoever holds these lists sees it."""
        self.loaded[:] = found.loaded
        self.failed[:] = found.failed
        self.disabled[:] = found.disabled
        self.connectors[:] = found.connectors
        self.commands[:] = found.commands
        self.infos[:] = found.infos
        self.candidates[:] = found.candidates
        self.parts.clear()
        self.parts.update(found.parts)

    def record(self, info: PluginInfo, old: PluginInfo | None = None) -> None:
        """Put `info` where `old` was (or last), and keep the per-state lists in step."""
        index = next((i for i, known in enumerate(self.infos) if known is old), None)
        if index is None:
            self.infos.append(info)
        else:
            self.infos[index] = info
        if old is not None:
            self.forget(old.name)
        if info.state == "loaded":
            self.loaded.append(info.name)
        elif info.state == "failed":
            self.failed.append(PluginFailure(info.name, info.error))
        else:
            self.disabled.append(info.name)

    def forget(self, name: str) -> None:
        """Drop `name` from the per-state lists."""
        self.loaded[:] = [known for known in self.loaded if known != name]
        self.disabled[:] = [known for known in self.disabled if known != name]
        self.failed[:] = [failure for failure in self.failed if failure.plugin != name]


@dataclass(frozen=True)
class Change:
    """What `install` did: the plugin as it now stands, and the connectors it took away and
    brought (to stop and start)."""

    info: PluginInfo
    removed: tuple[Connector, ...] = ()
    added: tuple[Connector, ...] = ()
