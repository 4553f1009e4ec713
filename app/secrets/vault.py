"""Hearth's own password store, for a computer without a platform keyring.

One file under Hearth's data folder (so `HEARTH_HOME` moves it), readable by its owner only:
a JSON header naming the key derivation, and the secrets as AES-256-GCM ciphertext whose key
scrypt derives from a password the user types into Hearth's own dialog or prompt. The header
is the ciphertext's associated data, so a file whose parameters were changed fails to open
just as a wrong password does. The key stays in memory while the store is unlocked, so the
slow derivation runs once per session, never once per read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hearth import paths
from hearth.errors import HearthError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

FORMAT = "hearth-secrets"
VERSION = 1
# scrypt's interactive-login cost (RFC 7914 §2 suggests N=2^14 for interactive use; one step
# more, as an unlock happens once a session): about 0.1 s and 32 MiB here.
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}
_MAX_MEMORY = 64 * 1024 * 1024
MIN_PASSWORD_LENGTH = 8


class VaultError(HearthError):
    """Hearth's password store cannot be created, opened or written; the message says why."""


class WrongPassword(VaultError):
    """The password typed does not open Hearth's password store."""


class VaultLocked(VaultError):
    """Hearth's password store has to be unlocked with its password first."""


class Vault:
    """The encrypted file at `path`, locked until `unlock` or `create` is given its password."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._key: bytes | None = None
        self._header: dict[str, Any] = {}
        self._items: dict[str, str] = {}

    @property
    def exists(self) -> bool:
        return self.path.exists()

    @property
    def unlocked(self) -> bool:
        return self._key is not None

    def create(self, password: str) -> None:
        """Make a new, empty store locked by `password`, and leave it unlocked."""
        if self.exists:
            raise VaultError(f"{self.path} already exists: unlock it with its password")
        if len(password) < MIN_PASSWORD_LENGTH:
            raise VaultError(
                f"choose a password of at least {MIN_PASSWORD_LENGTH} characters for the store"
            )
        header = {"format": FORMAT, "version": VERSION, "kdf": "scrypt", **_SCRYPT}
        header["salt"] = _encode(os.urandom(16))
        self._header, self._key, self._items = header, _derive(password, header), {}
        self._write()

    def unlock(self, password: str) -> None:
        """Open the store with `password`; `WrongPassword` when it is not the one."""
        header, nonce, ciphertext = self._read()
        key = _derive(password, header)
        self._items = self._decrypted(key, header, nonce, ciphertext)
        self._header, self._key = header, key

    def _decrypted(
        self, key: bytes | None, header: dict[str, Any], nonce: bytes, ciphertext: bytes
    ) -> dict[str, str]:
        from cryptography.exceptions import InvalidTag

        assert key is not None
        try:
            plain = _cipher(key).decrypt(nonce, ciphertext, _associated(header))
        except InvalidTag:
            raise WrongPassword(
                "that is not the password of Hearth's password store (or the file was altered)"
            ) from None
        items = json.loads(plain)
        if not isinstance(items, dict) or not all(isinstance(v, str) for v in items.values()):
            raise VaultError(f"{self.path} holds no secrets Hearth can read")
        return items

    def lock(self) -> None:
        self._key, self._items = None, {}

    def get(self, name: str) -> str | None:
        self._require_unlocked()
        return self._items.get(name)

    def set(self, name: str, value: str) -> None:
        self._require_unlocked()
        self._items = self._current_items()
        self._items[name] = value
        self._write()

    def delete(self, name: str) -> None:
        self._require_unlocked()
        self._items = self._current_items()
        if self._items.pop(name, None) is not None:
            self._write()

    def _current_items(self) -> dict[str, str]:
        """The secrets as the file holds them now: another Hearth process (the terminal beside
        the window) may have written since this one unlocked, and a change here keeps its."""
        header, nonce, ciphertext = self._read()
        if header != self._header:
            raise VaultError(
                f"{self.path} was replaced with a store under another password; unlock it again"
            )
        return self._decrypted(self._key, header, nonce, ciphertext)

    def _require_unlocked(self) -> None:
        if self._key is None:
            raise VaultLocked("Hearth's password store is locked")

    def _read(self) -> tuple[dict[str, Any], bytes, bytes]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise VaultError(f"there is no password store at {self.path} yet") from None
        except (OSError, ValueError) as error:
            raise VaultError(f"{self.path} cannot be read ({error})") from None
        try:
            header = dict(data["header"])
            nonce, ciphertext = _decode(data["nonce"]), _decode(data["ciphertext"])
            if header.get("format") != FORMAT or header.get("kdf") != "scrypt":
                raise ValueError("not a Hearth password store")
            if header.get("version") != VERSION:
                raise ValueError(f"version {header.get('version')!r}; this Hearth reads {VERSION}")
            _decode(header["salt"])
            int(header["n"]), int(header["r"]), int(header["p"])
        except (KeyError, TypeError, ValueError, binascii.Error) as error:
            raise VaultError(
                f"{self.path} is not a password store Hearth can open ({error})"
            ) from None
        return header, nonce, ciphertext

    def _write(self) -> None:
        assert self._key is not None
        nonce = os.urandom(12)
        plain = json.dumps(self._items, sort_keys=True).encode()
        ciphertext = _cipher(self._key).encrypt(nonce, plain, _associated(self._header))
        document = {
            "header": self._header,
            "nonce": _encode(nonce),
            "ciphertext": _encode(ciphertext),
        }
        # mkstemp makes the file readable and writable by its owner only.
        paths.write_bytes_atomically(self.path, [json.dumps(document, indent=1).encode()])


def _cipher(key: bytes) -> AESGCM:
    # Imported on use: `hearth` is imported by every command, and few of them open the store.
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)


def _derive(password: str, header: dict[str, Any]) -> bytes:
    n, r, p = int(header["n"]), int(header["r"]), int(header["p"])
    if n > 2**20 or r > 32 or p > 16:
        # A header could ask for gigabytes; such a file was not written by Hearth.
        raise VaultError("the password store asks for an unreasonable key derivation")
    try:
        return hashlib.scrypt(
            password.encode(),
            salt=_decode(header["salt"]),
            n=n,
            r=r,
            p=p,
            maxmem=_MAX_MEMORY,
            dklen=32,
        )
    except ValueError as error:
        raise VaultError(f"the password store's key derivation is not usable ({error})") from None


def _associated(header: dict[str, Any]) -> bytes:
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode()


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _decode(text: object) -> bytes:
    if not isinstance(text, str):
        raise ValueError("expected base64 text")
    return base64.b64decode(text, validate=True)
