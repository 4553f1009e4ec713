"""Hearth's own password store: one encrypted file, opened only by its password."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from hearth.secrets import MIN_PASSWORD_LENGTH, VaultError, WrongPassword, shared_secrets
from hearth.secrets.vault import Vault, VaultLocked

PASSWORD = "correct horse battery"
SECRET = "imap-app-password-9f2c"


@pytest.fixture
def made(tmp_path: Path) -> Path:
    vault = Vault(tmp_path / "secrets.hearth")
    vault.create(PASSWORD)
    vault.set("mail.password", SECRET)
    return vault.path


def test_a_secret_kept_is_read_back_by_a_new_session_with_the_password(made: Path) -> None:
    vault = Vault(made)
    assert vault.exists and not vault.unlocked
    with pytest.raises(VaultLocked):
        vault.get("mail.password")
    vault.unlock(PASSWORD)
    assert vault.get("mail.password") == SECRET
    vault.delete("mail.password")
    again = Vault(made)
    again.unlock(PASSWORD)
    assert again.get("mail.password") is None


def test_the_file_is_the_owners_alone_and_holds_no_secret_in_clear(made: Path) -> None:
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    data = made.read_bytes()
    assert SECRET.encode() not in data and PASSWORD.encode() not in data
    assert b"mail.password" not in data  # even the names are inside the ciphertext
    assert [p.name for p in made.parent.iterdir()] == [made.name]  # no partial file left


def test_a_wrong_password_is_said_plainly(made: Path) -> None:
    with pytest.raises(WrongPassword, match="not the password of Hearth's password store"):
        Vault(made).unlock("correct horse battery!")


@pytest.mark.parametrize(
    "alter",
    [
        lambda doc: doc.update(ciphertext=_flip(doc["ciphertext"])),
        lambda doc: doc.update(nonce=_flip(doc["nonce"])),
        lambda doc: doc["header"].update(r=4),  # weaker parameters written by someone else
        lambda doc: doc["header"].update(salt=_flip(doc["header"]["salt"])),
    ],
    ids=["ciphertext", "nonce", "kdf-parameters", "salt"],
)
def test_an_altered_file_does_not_open(made: Path, alter: object) -> None:
    document = json.loads(made.read_text())
    alter(document)  # type: ignore[operator]
    made.write_text(json.dumps(document))
    with pytest.raises(WrongPassword, match="or the file was altered"):
        Vault(made).unlock(PASSWORD)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{not json", "cannot be read"),
        ('{"header": {}, "nonce": "", "ciphertext": ""}', "not a Hearth password store"),
        (
            '{"header": {"format": "hearth-secrets", "kdf": "scrypt", "version": 9}, '
            '"nonce": "", "ciphertext": ""}',
            "version 9; this Hearth reads 1",
        ),
        (
            '{"header": {"format": "hearth-secrets", "kdf": "scrypt", "version": 1, '
            '"salt": "AAAA", "n": 1073741824, "r": 8, "p": 1}, "nonce": "AAAA", '
            '"ciphertext": "AAAA"}',
            "unreasonable key derivation",
        ),
    ],
    ids=["not-json", "foreign", "newer", "huge-kdf"],
)
def test_a_damaged_or_foreign_file_gets_a_clear_error_and_is_left_alone(
    tmp_path: Path, content: str, said: str
) -> None:
    path = tmp_path / "secrets.hearth"
    path.write_text(content)
    with pytest.raises(VaultError, match=said):
        Vault(path).unlock(PASSWORD)
    assert path.read_text() == content


def test_a_short_password_or_a_second_store_is_refused(tmp_path: Path, made: Path) -> None:
    with pytest.raises(VaultError, match=f"at least {MIN_PASSWORD_LENGTH} characters"):
        Vault(tmp_path / "other.hearth").create("short")
    assert not (tmp_path / "other.hearth").exists()
    with pytest.raises(VaultError, match="already exists"):
        Vault(made).create(PASSWORD)


def test_hearth_home_moves_the_store(hearth_home: Path) -> None:
    assert shared_secrets().vault.path == hearth_home / "data" / "secrets.hearth"


def _flip(text: str) -> str:
    import base64

    data = bytearray(base64.b64decode(text))
    data[0] ^= 1
    return base64.b64encode(bytes(data)).decode()


def test_two_processes_writing_keep_each_others_secrets(made: Path) -> None:
    window, terminal = Vault(made), Vault(made)
    window.unlock(PASSWORD)
    terminal.unlock(PASSWORD)
    terminal.set("calendar.password", "from the terminal")
    window.set("files.token", "from the window")  # unlocked before the terminal wrote
    fresh = Vault(made)
    fresh.unlock(PASSWORD)
    assert fresh.get("calendar.password") == "from the terminal"
    assert fresh.get("files.token") == "from the window"
    assert fresh.get("mail.password") == SECRET
