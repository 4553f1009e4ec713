"""The system connector's plugin module: the `hearth.plugins` entry point Hearth loads."""

from __future__ import annotations

from collections.abc import Callable

from hearth import Connector, hookimpl
from hearth.connectors.system.connector import SystemConnector


@hookimpl
def register_connectors(register: Callable[[Connector], None]) -> None:
    register(SystemConnector())
