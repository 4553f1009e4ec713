"""The system connector: this computer's Wi-Fi, sound, screen and notifications."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import click

from hearth import Connector, StatusItem
from hearth.connectors.system.machine import Machine
from hearth.connectors.system.platforms import this_machine
from hearth.connectors.system.reading import status_items
from hearth.connectors.system.tools import SystemTools


class SystemConnector(SystemTools, Connector):
    """Reads and changes OS settings through this machine's own commands, with consent."""

    name = "system"
    title = "System"
    description = (
        "Wi-Fi, volume, brightness, do-not-disturb and the battery of this computer. Every "
        "change asks first, is read back, and can be undone."
    )
    keywords = (
        "system",
        "setting",
        "settings",
        "computer",
        "laptop",
        "wifi",
        "offline",
        "online",
        "internet",
        "network",
    )

    def __init__(self, machine: Machine | None = None) -> None:
        super().__init__()
        # Nothing runs yet: each backend is probed on first use.
        self.machine = machine or this_machine()

    def status_items(self) -> Sequence[StatusItem]:
        return status_items(self.machine)

    def commands(self) -> Iterable[click.Command]:
        # Here, not at the top: only `hearth system` needs it, never the window or a turn.
        from hearth.connectors.system.cli import system_commands

        return [system_commands(self.machine)]
