"""The `Connector` contract: one object per service, created in its plugin's hook.

A connector owns its state (an index, a connection pool, a watcher) and hands itself to its
tools, its CLI commands and its setup form; nothing about it lives at module level. Subclass it
and decorate methods with `@tool`, or build a small one from plain tools with keywords.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import click
import pydantic

from hearth.errors import HearthError
from hearth.tools import ScopeKind, Tool
from hearth.tools.decorator import ToolMethod

CONNECTOR_NAME = re.compile(r"[a-z][a-z0-9_]*")

log = logging.getLogger(__name__)


class PluginError(HearthError):
    """A plugin registered something Hearth cannot accept."""


@dataclasses.dataclass(frozen=True)
class ConnectorAction:
    """Something the user can do from the connector's Accounts page (send mail that waited).

    `confirm` is what the user is asked before it runs ("" runs it at once); `run` does it off
    the UI thread and returns what to tell the user, or raises a `HearthError` saying why not.
    """

    label: str
    confirm: str
    run: Callable[[], str]


@dataclasses.dataclass(frozen=True)
class StatusItem:
    """One thing a connector reports on its Accounts page: "Volume", "40%", "PipeWire (wpctl)".

    `available` False greys it out and `detail` then says why ("not supported on this
    machine: ...").
    """

    label: str
    value: str
    detail: str = ""
    available: bool = True


class Connector:
    """A service Hearth can reach (mail, calendar, files, ...): its tools and how to set it up.

    `settings` is a pydantic model the UI renders as a setup form; secret fields go to the
    keyring (see `hearth.settings`). `test_connection(settings)` raises a `HearthError` whose
    message says what failed and what the user can do. `start()` begins background work (a
    file watcher, a sync) when a front end opens; `stop()` ends it and must be safe to repeat.
    A connector whose resources can be spelt more than one way defines
    `canonical_resource(value) -> str`, its own parser: every `@tool` of it with a `scope` gets
    each scoped value through it before the gate rules (see `Tool.canonical_arguments`).
    `scope_kind` is how the values its `@tool`s' scopes name are matched ("path"); a tool that
    says its own kind keeps it.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    description: ClassVar[str] = ""
    scope_kind: ClassVar[ScopeKind | None] = None
    keywords: tuple[str, ...] = ()
    settings: type[pydantic.BaseModel] | None = None
    test_connection: Callable[[Any], object] | None = None

    def __init__(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        tools: Iterable[Tool] = (),
        *,
        settings: type[pydantic.BaseModel] | None = None,
        test_connection: Callable[[Any], object] | None = None,
        keywords: Iterable[str] = (),
    ) -> None:
        # Instance values shadow the class's only when given, so a subclass's own stay.
        for attribute, value in (("name", name), ("title", title), ("description", description)):
            if value is not None:
                setattr(self, attribute, value)
        if settings is not None:
            self.settings = settings
        if test_connection is not None:
            self.test_connection = test_connection
        if keywords:
            self.keywords = tuple(keywords)
        self._extra_tools = tuple(tools)
        self._check()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Check the hooks each `@tool` method names, so a misspelt one fails at import."""
        super().__init_subclass__(**kwargs)
        for _, value in _class_attributes(cls):
            if isinstance(value, ToolMethod):
                value.check_hooks(cls, cls.name)

    @functools.cached_property
    def tools(self) -> tuple[Tool, ...]:
        """Every tool of this connector: its `@tool` methods, then any tools it was given."""
        return self._all_tools()

    def replace_tools(self, tools: Iterable[Tool]) -> None:
        """Offer `tools` in place of those it was given (an MCP server that came up). Call
        `connector_did_change()` after it, so whoever runs the connector swaps them in."""
        self._extra_tools = tuple(tools)
        self._check()
        # Assigned, not recomputed on the next read: a reader on another thread never sees
        # the cache empty, so it cannot put back what it computed from the old tools.
        self.__dict__["tools"] = self._all_tools()

    def add_change_listener(self, listener: Callable[[Connector], None]) -> Callable[[], None]:
        """Have `listener(self)` called after each `connector_did_change()`, on the thread that
        calls that; returns the function that ends it."""
        with _LISTENERS_LOCK:
            self.__dict__.setdefault("_change_listeners", []).append(listener)

        def unsubscribe() -> None:
            with _LISTENERS_LOCK:
                listeners = self.__dict__.get("_change_listeners", [])
                if listener in listeners:
                    listeners.remove(listener)

        return unsubscribe

    def connector_did_change(self) -> None:
        """Tell the change listeners that its tools or status changed. Call it from a thread
        that holds no lock a listener may take; a listener's error is logged, not raised."""
        with _LISTENERS_LOCK:
            listeners = list(self.__dict__.get("_change_listeners", ()))
        for listener in listeners:
            try:
                listener(self)
            except Exception:
                log.exception("a listener of connector %r failed", self.name)

    def _all_tools(self) -> tuple[Tool, ...]:
        methods = [
            getattr(self, attribute)
            for attribute, value in _class_attributes(type(self))
            if isinstance(value, ToolMethod)
        ]
        return tuple(_owned(self, tool) for tool in (*methods, *self._extra_tools))

    def commands(self) -> Iterable[click.Command]:
        """`hearth <command>`s working on this connector, bound to it."""
        return ()

    def status_line(self) -> str | None:
        """One line on how the connector stands (e.g. "3 calendars, synced 2 minutes ago, 1
        conflict"), shown on its Accounts page; None when there is nothing to say. Called off
        the UI thread, and may read local state but should not wait on a network."""
        return None

    def settings_saved(self) -> None:
        """The user saved new settings (the Accounts page): a connector that syncs in the
        background should sync soon, so a new account shows up at once. Called off the UI
        thread; must not wait for the sync itself."""

    def status_items(self) -> Sequence[StatusItem]:
        """What the connector can read and do here, item by item (Wi-Fi, volume, ...), shown as
        a strip on its Accounts page; a connector that overrides this gets a section there even
        without settings. Read off the UI thread, like `status_line`."""
        return ()

    def actions(self) -> Sequence[ConnectorAction]:
        """What the user can do now from the Accounts page; read off the UI thread, like
        `status_line`, so it may look at local state but should not wait on a network."""
        return ()

    def start(self) -> None:
        """Begin background work; a front end calls this once it opens."""

    def stop(self) -> None:
        """End background work; safe to call twice."""

    def _check(self) -> None:
        if not CONNECTOR_NAME.fullmatch(self.name):
            raise PluginError(f"connector name {self.name!r} must be lower-case, like 'mail'")
        stray = [type(item).__name__ for item in self._extra_tools if not isinstance(item, Tool)]
        if stray:
            raise PluginError(f"connector {self.name!r}: tools must be Tool objects, not {stray}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


_LISTENERS_LOCK = threading.Lock()


def _class_attributes(cls: type) -> Iterable[tuple[str, object]]:
    seen: set[str] = set()
    for klass in cls.__mro__:
        for attribute, value in vars(klass).items():
            if attribute not in seen:
                seen.add(attribute)
                yield attribute, value


def _owned(connector: Connector, tool: Tool) -> Tool:
    # The connector's keywords also suggest each of its tools when tools are picked per turn.
    keywords = tuple(dict.fromkeys((*tool.keywords, *connector.keywords)))
    return dataclasses.replace(tool, connector=connector.name, keywords=keywords)
