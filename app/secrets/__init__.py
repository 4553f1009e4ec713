"""Where Hearth keeps passwords: the platform keyring, its own encrypted store, or memory."""

from hearth.secrets.keeper import (
    NoSecretStore,
    Place,
    Secrets,
    SecretsLocked,
    SecretStorageUnavailable,
    shared_secrets,
    use_password_prompt,
)
from hearth.secrets.system import SystemKeyring, find_system_keyring
from hearth.secrets.vault import MIN_PASSWORD_LENGTH, VaultError, WrongPassword

__all__ = [
    "MIN_PASSWORD_LENGTH",
    "NoSecretStore",
    "Place",
    "SecretStorageUnavailable",
    "Secrets",
    "SecretsLocked",
    "SystemKeyring",
    "VaultError",
    "WrongPassword",
    "find_system_keyring",
    "shared_secrets",
    "use_password_prompt",
]
