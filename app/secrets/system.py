"""The platform's own keyring: Secret Service (GNOME Keyring, KWallet), Keychain, Credential Locker.

Hearth asks for these by name instead of taking whatever `keyring` ranks first, because the
other backends it could pick are not the platform's: an encrypted file asks for its own
password on the terminal (or fails with EOFError in a window), a plain file keeps secrets
unencrypted, and neither lives under Hearth's data folder.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from dataclasses import dataclass

import keyring.backend
import keyring.errors

from hearth.errors import HearthError

# (module, class, what a user calls it), in the order tried.
PLATFORM_KEYRINGS = (
    ("keyring.backends.macOS", "Keyring", "the macOS Keychain"),
    ("keyring.backends.Windows", "WinVaultKeyring", "the Windows Credential Locker"),
    ("keyring.backends.SecretService", "Keyring", "the desktop keyring (Secret Service)"),
    ("keyring.backends.libsecret", "Keyring", "the desktop keyring (libsecret)"),
    ("keyring.backends.kwallet", "DBusKeyring", "KWallet"),
)


class KeyringRefused(HearthError):
    """The platform keyring did not answer or refused access; the message says what it said."""


@dataclass(frozen=True)
class SystemKeyring:
    """One platform keyring, holding Hearth's secrets under `service`."""

    backend: keyring.backend.KeyringBackend
    label: str
    service: str

    def get(self, name: str) -> str | None:
        with self._refusals():
            return self.backend.get_password(self.service, name)

    def set(self, name: str, value: str) -> None:
        with self._refusals():
            self.backend.set_password(self.service, name, value)

    def delete(self, name: str) -> None:
        with contextlib.suppress(keyring.errors.PasswordDeleteError), self._refusals():
            self.backend.delete_password(self.service, name)

    @contextlib.contextmanager
    def _refusals(self) -> Iterator[None]:
        try:
            yield
        except keyring.errors.PasswordDeleteError:
            raise
        except keyring.errors.KeyringError as error:
            raise KeyringRefused(f"{self.label} refused access ({error})") from None


def find_system_keyring(service: str) -> SystemKeyring | None:
    """The first platform keyring that works here, or None (no desktop keyring is running)."""
    for module_name, class_name, label in PLATFORM_KEYRINGS:
        try:
            backend_class = getattr(importlib.import_module(module_name), class_name)
            # A backend's priority raises (or is below zero) where it cannot work.
            if float(backend_class.priority) <= 0:
                continue
        except Exception:
            continue
        return SystemKeyring(backend_class(), label, service)
    return None
