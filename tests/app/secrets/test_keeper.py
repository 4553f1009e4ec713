"""Where a Hearth keeps passwords, and that each is read once a session."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.secrets import (
    NoSecretStore,
    Place,
    Secrets,
    SecretsLocked,
    SystemKeyring,
    WrongPassword,
    shared_secrets,
)

STORE_PASSWORD = "correct horse battery"


def test_the_desktop_keyring_is_used_and_read_once_a_session(
    tmp_path: Path, secure_keyring: SystemKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = shared_secrets()
    assert shared.place is Place.SYSTEM
    assert shared.describe() == "Passwords are kept in the desktop keyring (Secret Service)."
    shared.set("calendar.password", "s3cret")
    assert secure_keyring.get("calendar.password") == "s3cret"

    reads: list[str] = []
    real = secure_keyring.backend.get_password
    monkeypatch.setattr(
        secure_keyring.backend, "get_password", lambda *key: reads.append(key[1]) or real(*key)
    )
    session = Secrets(tmp_path / "unused.hearth", secure_keyring)  # a new session
    for _ in range(13):  # a proposed calendar change read its settings 13 times
        assert session.get("calendar.password") == "s3cret"
    assert session.get("mail.password") is None
    assert session.get("mail.password") is None
    assert reads == ["calendar.password", "mail.password"]


def test_each_hearth_home_keeps_its_passwords_apart(
    tmp_path: Path, secure_keyring: SystemKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The settings live under HEARTH_HOME; a second home is a second set of accounts.
    shared_secrets().set("mail.password", "first home")
    monkeypatch.setenv("HEARTH_HOME", str(tmp_path / "second"))
    other = shared_secrets()
    assert other.system is not None and other.system.service != secure_keyring.service
    assert other.get("mail.password") is None


def test_without_a_keyring_the_store_is_made_then_asked_for_once(tmp_path: Path) -> None:
    path = tmp_path / "secrets.hearth"
    first = Secrets(path, system=None)
    assert first.place is Place.SESSION
    with pytest.raises(NoSecretStore, match="used for this session only"):
        first.set("mail.password", "pw")
    first.create_store(STORE_PASSWORD)
    first.set("mail.password", "pw")
    assert first.place is Place.VAULT

    asked: list[str] = []
    second = Secrets(path, system=None)  # the next start
    second.ask_password = lambda: asked.append("asked") or STORE_PASSWORD
    assert second.describe() == "Passwords are kept in Hearth's own encrypted store (locked)."
    for _ in range(5):
        assert second.get("mail.password") == "pw"
    assert asked == ["asked"]
    assert second.describe() == "Passwords are kept in Hearth's own encrypted store (unlocked)."


def test_a_locked_store_with_nobody_to_ask_is_an_error_never_a_prompt(tmp_path: Path) -> None:
    path = tmp_path / "secrets.hearth"
    Secrets(path, system=None).create_store(STORE_PASSWORD)
    locked = Secrets(path, system=None)
    with pytest.raises(SecretsLocked, match="unlock it under Accounts"):
        locked.get("mail.password")
    locked.ask_password = lambda: None  # the user cancelled
    with pytest.raises(SecretsLocked):
        locked.get("mail.password")
    locked.ask_password = lambda: "not it at all"
    with pytest.raises(WrongPassword):
        locked.get("mail.password")
    locked.unlock(STORE_PASSWORD)
    assert locked.get("mail.password") is None


def test_a_held_password_wins_and_is_never_stored(tmp_path: Path) -> None:
    secrets = Secrets(tmp_path / "secrets.hearth", system=None)
    secrets.hold("mail.password", "typed this session")
    assert secrets.get("mail.password") == "typed this session"
    assert not secrets.vault.exists
    assert Secrets(tmp_path / "secrets.hearth", system=None).get("mail.password") is None
