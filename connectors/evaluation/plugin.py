"""The evaluation's plugin module: `hearth eval`, through the `hearth.plugins` entry point."""

from __future__ import annotations

from collections.abc import Callable

import click

from hearth import hookimpl


@hookimpl
def register_commands(register: Callable[[click.Command], None]) -> None:
    from hearth.connectors.evaluation.cli import evaluate

    register(evaluate)
