"""Connector settings: plain fields on disk, secrets only in a secure keyring, or not at all."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

import keyring
import keyring.backend
import pydantic
import pytest
from keyring.backends import fail
from keyrings.alt.file import EncryptedKeyring, PlaintextKeyring
from keyrings.cryptfile.cryptfile import CryptFileKeyring

from hearth.settings.model import (
    FormField,
    SecretStorageUnavailable,
    SettingsError,
    SettingsIncomplete,
    SettingsStore,
    form_fields,
    secure_keyring_problem,
)

PASSWORD = "hunter2-correct-horse"


class MailSettings(pydantic.BaseModel):
    host: str = pydantic.Field(description="The IMAP server, like imap.example.org.")
    username: str
    password: pydantic.SecretStr = pydantic.Field(description="Your mail password.")
    port: int = 993
    security: Literal["ssl", "starttls"] = "ssl"
    api_token: str | None = pydantic.Field(None, json_schema_extra={"secret": True})
    archive: Path | None = None


def mail(**changes: object) -> MailSettings:
    values: dict[str, object] = {
        "host": "imap.example.org",
        "username": "ann",
        "password": PASSWORD,
    }
    return MailSettings.model_validate({**values, **changes})


@pytest.fixture
def use_keyring() -> Iterator[Callable[[keyring.backend.KeyringBackend], None]]:
    previous = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(previous)


@pytest.fixture
def secure_keyring(
    tmp_path: Path, use_keyring: Callable[[keyring.backend.KeyringBackend], None]
) -> CryptFileKeyring:
    """A real encrypted file keyring (Argon2 + AES-GCM) with its key preset."""
    backend = CryptFileKeyring()
    # The default KDF costs about a second per call; the encryption itself is unchanged.
    backend.time_cost, backend.memory_cost = 1, 1024
    backend.file_path = str(tmp_path / "keyring.cfg")
    backend.keyring_key = "test master key"
    use_keyring(backend)
    return backend


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def test_secrets_go_to_the_keyring_and_the_rest_to_json(
    secure_keyring: CryptFileKeyring, hearth_home: Path
) -> None:
    store = SettingsStore()
    store.save("mail", mail(api_token="tok-123", archive="/mail/archive"))
    saved = json.loads(store.path("mail").read_text())
    assert saved == {
        "host": "imap.example.org",
        "username": "ann",
        "port": 993,
        "security": "ssl",
        "archive": "/mail/archive",
    }
    assert store.path("mail") == hearth_home / "config" / "connectors" / "mail.json"
    assert secure_keyring.get_password("hearth", "mail.password") == PASSWORD
    assert secure_keyring.get_password("hearth", "mail.api_token") == "tok-123"
    for path in [*files_under(hearth_home), Path(secure_keyring.file_path)]:
        assert PASSWORD.encode() not in path.read_bytes(), path
    loaded = store.load("mail", MailSettings)
    assert loaded == mail(api_token="tok-123", archive="/mail/archive")
    assert loaded.password.get_secret_value() == PASSWORD


def test_clearing_an_optional_secret_removes_it_from_the_keyring(
    secure_keyring: CryptFileKeyring,
) -> None:
    store = SettingsStore()
    store.save("mail", mail(api_token="tok-123"))
    store.save("mail", mail(api_token=None))
    assert secure_keyring.get_password("hearth", "mail.api_token") is None
    assert store.load("mail", MailSettings).api_token is None


def test_delete_forgets_file_and_secrets(secure_keyring: CryptFileKeyring) -> None:
    store = SettingsStore()
    store.save("mail", mail(api_token="tok-123"))
    store.delete("mail", MailSettings)
    assert not store.is_saved("mail")
    assert secure_keyring.get_password("hearth", "mail.password") is None
    with pytest.raises(SettingsIncomplete) as raised:
        store.load("mail", MailSettings)
    assert raised.value.missing == ("host", "username", "password")


@pytest.mark.parametrize(
    ("make_backend", "problem"),
    [
        (lambda tmp: fail.Keyring(), "no keyring backend is available"),
        (lambda tmp: plaintext(tmp), r"PlaintextKeyring stores secrets unencrypted"),
        (lambda tmp: EncryptedKeyring(), r"EncryptedKeyring is not considered secure \(priority"),
    ],
    ids=["fail", "plaintext", "low-priority"],
)
def test_without_a_secure_keyring_secrets_are_refused(
    tmp_path: Path,
    hearth_home: Path,
    use_keyring: Callable[[keyring.backend.KeyringBackend], None],
    make_backend: Callable[[Path], keyring.backend.KeyringBackend],
    problem: str,
) -> None:
    use_keyring(make_backend(tmp_path))
    assert secure_keyring_problem() is not None
    store = SettingsStore()
    with pytest.raises(SecretStorageUnavailable, match=problem):
        store.save("mail", mail())
    assert not (tmp_path / "plaintext.cfg").exists()
    for path in files_under(hearth_home):
        assert PASSWORD.encode() not in path.read_bytes(), path
    # Plain fields were kept; the password is asked for each session instead.
    with pytest.raises(SettingsIncomplete, match="missing password") as raised:
        store.load("mail", MailSettings)
    assert raised.value.missing == ("password",)
    loaded = store.load("mail", MailSettings, secrets={"password": "asked"})
    assert (loaded.host, loaded.password.get_secret_value()) == ("imap.example.org", "asked")


def plaintext(tmp: Path) -> PlaintextKeyring:
    backend = PlaintextKeyring()
    backend.file_path = str(tmp / "plaintext.cfg")
    return backend


def test_settings_without_secrets_need_no_keyring(
    use_keyring: Callable[[keyring.backend.KeyringBackend], None],
) -> None:
    class Folders(pydantic.BaseModel):
        roots: list[Path] = []

    use_keyring(fail.Keyring())
    store = SettingsStore()
    store.save("files", Folders(roots=[Path("/docs")]))
    assert store.load("files", Folders) == Folders(roots=[Path("/docs")])


def test_saving_leaves_no_temporary_files(secure_keyring: CryptFileKeyring) -> None:
    store = SettingsStore()
    for port in (993, 994):
        store.save("mail", mail(port=port))
    assert [path.name for path in store.folder.iterdir()] == ["mail.json"]


def test_unreadable_or_invalid_settings_are_reported(secure_keyring: CryptFileKeyring) -> None:
    store = SettingsStore()
    store.save("mail", mail())
    store.path("mail").write_text("{not json")
    with pytest.raises(SettingsError, match=r"unreadable.*set mail up again"):
        store.load("mail", MailSettings)
    store.path("mail").write_text(json.dumps({"host": "h", "username": "u", "port": "many"}))
    with pytest.raises(SettingsError, match="port: Input should be a valid integer"):
        store.load("mail", MailSettings)


def test_connector_names_are_checked() -> None:
    with pytest.raises(SettingsError, match="must be lower-case"):
        SettingsStore().path("../evil")


def test_form_fields_describe_the_setup_form() -> None:
    fields = {field.name: field for field in form_fields(MailSettings)}
    assert list(fields) == list(MailSettings.model_fields)
    assert fields["host"] == FormField(
        name="host",
        title="Host",
        type="string",
        required=True,
        secret=False,
        default=None,
        description="The IMAP server, like imap.example.org.",
    )
    password = fields["password"]
    assert (password.secret, password.required, password.format) == (True, True, "password")
    assert (fields["port"].type, fields["port"].default, fields["port"].required) == (
        "integer",
        993,
        False,
    )
    assert fields["security"].choices == ("ssl", "starttls")
    assert fields["api_token"].secret and fields["api_token"].type == "string"
    assert (fields["archive"].type, fields["archive"].format) == ("string", "path")
    assert fields["api_token"].title == "Api Token"
