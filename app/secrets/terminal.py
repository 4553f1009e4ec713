"""Keeping a password from the terminal: Hearth's own prompts, never a library's.

Commands that take a password (`hearth mail connect`, `hearth calendar connect`) save it
through `keep_password`; where the computer has no keyring it offers to make Hearth's own
store, and without a terminal to ask on it keeps the password for this run only and says so.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from hearth.secrets.keeper import (
    NoSecretStore,
    SecretsLocked,
    SecretStorageUnavailable,
    shared_secrets,
)
from hearth.secrets.vault import MIN_PASSWORD_LENGTH, VaultError

STORE_PROMPT = "Password of Hearth's password store"


class NoPasswordGiven(SecretStorageUnavailable):
    """A command was told to ask for a password, and none came."""


def interactive() -> bool:
    """Whether someone at a terminal can answer a prompt."""
    return sys.stdin.isatty()


def ask_store_password() -> str | None:
    """The store's password, asked on the terminal; None when there is nobody to ask."""
    if not interactive():
        return None
    try:
        return str(click.prompt(STORE_PROMPT, hide_input=True, err=True))
    except (click.Abort, EOFError):
        return None


def ask_secret(prompt: str, what: str) -> str:
    """`what` (a password) from the person at the terminal, hidden, or else one line of standard
    input, as a script pipes it (never getpass's echo warning); `NoPasswordGiven` if none."""
    if interactive():
        try:
            return str(click.prompt(prompt, hide_input=True, err=True))
        except (click.Abort, EOFError):
            raise NoPasswordGiven(f"{what} was not typed") from None
    line = sys.stdin.readline().rstrip("\r\n")
    if not line:
        raise NoPasswordGiven(
            f"{what} is needed: type it in a terminal, or pipe it as one line on standard input"
        )
    return line


def ask_password_option(
    prompt: str, what: str, when_needed: Callable[[Callable[[], str]], None]
) -> click.Option:
    """A group's `--ask-password`: given, `when_needed` is handed the asking (`ask_secret`), to
    run only when the password is read, so a command that needs none asks nothing."""

    def asked(_context: click.Context, _option: click.Parameter, given: bool) -> None:
        if given:
            when_needed(lambda: ask_secret(prompt, what))

    return click.Option(
        ["--ask-password"],
        is_flag=True,
        expose_value=False,
        callback=asked,
        help=f"Ask for {what} now (used for this run only, never stored); it is read from "
        "standard input when that is not a terminal.",
    )


def keep_password(save: Callable[[], None], hold: Callable[[], None]) -> str:
    """Run `save`; where no store can keep the password, `hold` it for this run. Returns a line
    saying where the password is now."""
    try:
        save()
    except SecretsLocked:
        hold()
        return (
            "The password was not stored: Hearth's password store is locked and no terminal "
            "can ask for its password. It is used for this run only."
        )
    except NoSecretStore:
        if not (interactive() and _make_store()):
            hold()
            return (
                "The password was not stored: this computer has no keyring and there is no "
                "Hearth password store (make one with `hearth passwords create`). It is used "
                "for this run only; pass --ask-password to give it again."
            )
        save()
    return shared_secrets().describe()


def _make_store() -> bool:
    click.echo("This computer has no keyring (GNOME Keyring, KWallet, Keychain) to keep passwords.")
    if not click.confirm("Make Hearth's own encrypted password store for them?", default=True):
        return False
    create_password_store()
    return True


def create_password_store() -> None:
    """Ask for a new password twice (or read it once from a pipe) and make Hearth's password
    store with it."""
    if not interactive():
        shared_secrets().create_store(ask_secret("", "a password for Hearth's password store"))
        click.echo(f"Made Hearth's password store: {shared_secrets().vault.path}")
        return
    while True:
        password = str(
            click.prompt(
                f"New password for Hearth's password store (at least {MIN_PASSWORD_LENGTH} "
                "characters)",
                hide_input=True,
                confirmation_prompt=True,
                err=True,
            )
        )
        try:
            shared_secrets().create_store(password)
        except VaultError as error:
            if len(password) >= MIN_PASSWORD_LENGTH:
                raise
            click.echo(str(error), err=True)
            continue
        click.echo(f"Made Hearth's password store: {shared_secrets().vault.path}")
        return
