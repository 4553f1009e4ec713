"""Where this Hearth keeps passwords, and each one read once a session.

There are three places, chosen in this order: the platform keyring; else Hearth's own
encrypted store, once the user has made one; else memory, for this session only. Whatever
the place, a secret read once is held in memory until it changes, because reading can be
slow (a D-Bus round trip; the store's key derivation) and a proposed tool call reads settings
many times before its card shows.

The store is unlocked by a password typed into Hearth's own dialog or prompt: a front end
unlocks it or sets a prompt (`use_password_prompt`), and without one a locked store is
`SecretsLocked`, never a prompt from some library on a terminal nobody watches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TypeVar

from hearth import paths
from hearth.errors import HearthError
from hearth.secrets.system import KeyringRefused, SystemKeyring, find_system_keyring
from hearth.secrets.vault import Vault, VaultLocked

STORE_FILE = "secrets.hearth"
DEFAULT_SERVICE = "hearth"
_T = TypeVar("_T")


class Place(Enum):
    SYSTEM = "system"
    VAULT = "vault"
    SESSION = "session"


class SecretStorageUnavailable(HearthError):
    """A secret cannot be kept or read where Hearth keeps secrets; the message says what to do."""


class SecretsLocked(SecretStorageUnavailable):
    """Hearth's password store is locked and no password for it was given."""


class NoSecretStore(SecretStorageUnavailable):
    """There is no platform keyring and no Hearth password store: secrets last this session."""


class Secrets:
    """This Hearth's secrets: the place they are kept, and what was read of them so far."""

    def __init__(self, vault_path: Path, system: SystemKeyring | None) -> None:
        self.system = system
        self.vault = Vault(vault_path)
        self.ask_password: Callable[[], str | None] | None = None
        self._known: dict[str, str | None] = {}
        self._session: dict[str, str] = {}
        self._asking: dict[str, Callable[[], str]] = {}
        self._lock = threading.RLock()

    @property
    def place(self) -> Place:
        if self.system is not None:
            return Place.SYSTEM
        return Place.VAULT if self.vault.exists else Place.SESSION

    def describe(self) -> str:
        """Where passwords are kept, in the words the Accounts page and the terminal use."""
        if self.system is not None:
            return f"Passwords are kept in {self.system.label}."
        if self.vault.exists:
            state = "unlocked" if self.vault.unlocked else "locked"
            return f"Passwords are kept in Hearth's own encrypted store ({state})."
        return (
            "This computer has no keyring, so passwords last for this session only, unless you "
            "make Hearth's own encrypted password store."
        )

    def get(self, name: str) -> str | None:
        """The secret `name`, from memory after the first read."""
        with self._lock:
            if name in self._asking:
                self._session[name] = self._asking.pop(name)()
            if name in self._session:
                return self._session[name]
            if name not in self._known:
                self._known[name] = self._read(name)
            return self._known[name]

    def set(self, name: str, value: str) -> None:
        """Keep `value` where secrets are kept; `NoSecretStore` when that is nowhere."""
        system = self.system
        with self._lock:
            if system is not None:
                self._refused_as_unavailable(lambda: system.set(name, value))
            elif self.vault.exists:
                self._unlocked().set(name, value)
            else:
                raise NoSecretStore(
                    "this computer has no keyring and there is no Hearth password store, so the "
                    "password is used for this session only"
                )
            self._session.pop(name, None)
            self._known[name] = value

    def delete(self, name: str) -> None:
        system = self.system
        with self._lock:
            self._session.pop(name, None)
            self._known[name] = None
            if system is not None:
                self._refused_as_unavailable(lambda: system.delete(name))
            elif self.vault.exists:
                self._unlocked().delete(name)

    def hold(self, name: str, value: str) -> None:
        """Use `value` for `name` this session only, in memory, whatever is stored."""
        with self._lock:
            self._session[name] = value

    def ask_when_needed(self, name: str, ask: Callable[[], str]) -> None:
        """Hold what `ask` answers for `name` this session, asked only if `name` is read (a
        command given --ask-password that turns out to need no password asks nothing)."""
        with self._lock:
            self._asking[name] = ask

    def create_store(self, password: str) -> None:
        """Make Hearth's own password store, for a computer without a keyring; unlocked."""
        with self._lock:
            self.vault.create(password)
            self._known.clear()

    def unlock(self, password: str) -> None:
        """Open Hearth's password store; `WrongPassword` when `password` is not its own."""
        with self._lock:
            self.vault.unlock(password)
            self._known.clear()

    def _read(self, name: str) -> str | None:
        system = self.system
        if system is not None:
            return self._refused_as_unavailable(lambda: system.get(name))
        if self.vault.exists:
            return self._unlocked().get(name)
        return None

    def _unlocked(self) -> Vault:
        if not self.vault.unlocked:
            ask = self.ask_password or _password_prompt
            password = ask() if ask is not None else None
            if password is None:
                raise SecretsLocked(
                    "Hearth's password store is locked: unlock it under Accounts, or run the "
                    "command in a terminal to be asked for its password"
                )
            self.vault.unlock(password)
        return self.vault

    @staticmethod
    def _refused_as_unavailable(call: Callable[[], _T]) -> _T:
        try:
            return call()
        except (KeyringRefused, VaultLocked) as error:
            raise SecretStorageUnavailable(str(error)) from None


_password_prompt: Callable[[], str | None] | None = None


def use_password_prompt(prompt: Callable[[], str | None] | None) -> None:
    """How this process asks for the store's password when a secret is first needed (the
    terminal's hidden prompt); a `Secrets` with its own `ask_password` uses that instead."""
    global _password_prompt
    _password_prompt = prompt


_shared: dict[Path, Secrets] = {}
_shared_lock = threading.Lock()


def shared_secrets() -> Secrets:
    """The secrets of the Hearth at `HEARTH_HOME` (or the user's own), one per process."""
    vault_path = paths.data_dir() / STORE_FILE
    with _shared_lock:
        if vault_path not in _shared:
            _shared[vault_path] = Secrets(vault_path, find_system_keyring(_service()))
        return _shared[vault_path]


def _service() -> str:
    """The keyring service name; a Hearth moved by `HEARTH_HOME` is a separate set of
    accounts (its settings live there), so its passwords are kept apart too."""
    home = paths.home_override()
    return f"{DEFAULT_SERVICE}:{home.resolve()}" if home is not None else DEFAULT_SERVICE
