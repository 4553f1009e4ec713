"""`hearth passwords`: where Hearth keeps passwords; its own store where there is no keyring."""

from __future__ import annotations

import click

from hearth import Place, create_password_store, shared_secrets


@click.group("passwords")
def passwords() -> None:
    """Where Hearth keeps account passwords; make its own store where there is no keyring."""


@passwords.command("status")
def status() -> None:
    """Say where passwords are kept (the system keyring, Hearth's store, or this run only)."""
    secrets = shared_secrets()
    click.echo(secrets.describe())
    if secrets.place is Place.VAULT:
        click.echo(f"The store is the file {secrets.vault.path}")


@passwords.command("create")
def create() -> None:
    """Make Hearth's own encrypted password store (asks for its password twice)."""
    secrets = shared_secrets()
    if secrets.place is Place.SYSTEM:
        raise click.ClickException(
            f"{secrets.describe()} Hearth's own store is only for computers without a keyring."
        )
    if secrets.place is Place.VAULT:
        raise click.ClickException(f"Hearth's password store already exists: {secrets.vault.path}")
    create_password_store()
