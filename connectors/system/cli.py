"""`hearth system`: what Hearth can read and change on this computer, and with what."""

from __future__ import annotations

import json

import click

from hearth import shown
from hearth.connectors.system.machine import Machine
from hearth.connectors.system.reading import read_status, status_items


def system_commands(machine: Machine) -> click.Group:
    """`hearth system` working on `machine`."""
    return click.Group(
        "system",
        commands=[status],
        help="Wi-Fi, volume, brightness, do-not-disturb and the battery: each backend here.",
        context_settings={"obj": machine},
    )


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print what the model reads, as JSON.")
@click.pass_obj
def status(machine: Machine, as_json: bool) -> None:
    """Each setting's value and the backend that reads it, or why it is not supported here."""
    if as_json:
        click.echo(json.dumps(read_status(machine).model_dump(mode="json"), indent=2))
        return
    items = status_items(machine)
    width = max(len(item.label) for item in items)
    for item in items:
        # The value and why a backend is missing come from the system: a Wi-Fi name, a message.
        line = f"{item.label:<{width}}  {shown(item.value)}"
        click.echo(f"{line}  ({shown(item.detail)})" if item.detail else line)
