"""The evaluation's plugin module: `hearth eval`, through the `hearth.plugins` entry point.

Without the `eval` extra (or in a frozen build, which ships only this module) the command is
still listed, and says what it needs instead of failing to load.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from hearth import hookimpl

# What `hearth eval` needs beyond Hearth itself: the `eval` extra's packages.
EXTRA = ("radicale", "aiosmtpd", "trustme")
NEEDS = (
    "`hearth eval` needs the loopback servers it scores Hearth on, which this installation does"
    " not have. From a source checkout: pip install 'hearth[eval]' (and sudo apt install"
    " dovecot-imapd pulseaudio dbus-daemon dconf-service)."
)


@hookimpl
def register_commands(register: Callable[[click.Command], None]) -> None:
    try:
        from hearth.connectors.evaluation.cli import evaluate
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if not missing.startswith(("hearth.connectors.evaluation", *EXTRA)):
            raise
        register(_unavailable())
        return
    register(evaluate)


def _unavailable() -> click.Command:
    @click.command("eval", context_settings={"ignore_unknown_options": True})
    @click.argument("ignored", nargs=-1, type=click.UNPROCESSED)
    def evaluate(ignored: tuple[str, ...]) -> None:
        """Score Hearth on scenarios over real loopback servers (needs the eval extra)."""
        raise click.ClickException(NEEDS)

    return evaluate
