"""Connector settings: plain fields on disk, secrets only where `hearth.secrets` keeps them."""

from __future__ import annotations

import json
import os
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

from hearth.secrets import NoSecretStore, Place, SystemKeyring, shared_secrets
from hearth.settings.model import (
    FormField,
    SettingsError,
    SettingsIncomplete,
    SettingsStore,
    form_fields,
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


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def test_secrets_go_to_the_keyring_and_the_rest_to_json(
    secure_keyring: SystemKeyring, hearth_home: Path
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
    assert secure_keyring.get("mail.password") == PASSWORD
    assert secure_keyring.get("mail.api_token") == "tok-123"
    for path in files_under(hearth_home):
        assert PASSWORD.encode() not in path.read_bytes(), path
    loaded = store.load("mail", MailSettings)
    assert loaded == mail(api_token="tok-123", archive="/mail/archive")
    assert loaded.password.get_secret_value() == PASSWORD


def test_a_secret_left_empty_keeps_the_stored_one(secure_keyring: SystemKeyring) -> None:
    # Settings read without their secrets (the store locked, a reader that needs no password)
    # and saved back must never erase a password; only `delete` forgets one.
    store = SettingsStore()
    store.save("mail", mail(api_token="tok-123"))
    store.save("mail", mail(api_token=None, port=994))
    assert secure_keyring.get("mail.api_token") == "tok-123"
    assert store.load("mail", MailSettings).port == 994


def test_delete_forgets_file_and_secrets(secure_keyring: SystemKeyring) -> None:
    store = SettingsStore()
    store.save("mail", mail(api_token="tok-123"))
    store.delete("mail", MailSettings)
    assert not store.is_saved("mail")
    assert secure_keyring.get("mail.password") is None
    with pytest.raises(SettingsIncomplete) as raised:
        store.load("mail", MailSettings)
    assert raised.value.missing == ("host", "username", "password")


@pytest.mark.parametrize(
    "make_backend",
    [
        lambda tmp: fail.Keyring(),
        lambda tmp: plaintext(tmp),
        lambda tmp: EncryptedKeyring(),
        lambda tmp: unkeyed_cryptfile(tmp),
    ],
    ids=["fail", "plaintext", "encrypted-file", "cryptfile"],
)
def test_a_keyring_that_is_not_the_platforms_is_never_used(
    tmp_path: Path,
    hearth_home: Path,
    use_keyring: Callable[[keyring.backend.KeyringBackend], None],
    make_backend: Callable[[Path], keyring.backend.KeyringBackend],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each of these is what `keyring` itself would pick on a desktop without a Secret
    # Service; the two file keyrings ask for their own password on the terminal, which read
    # from a closed stdin is the window's "EOFError".
    use_keyring(make_backend(tmp_path))
    monkeypatch.setattr("sys.stdin", Path(os.devnull).open())  # noqa: SIM115
    assert shared_secrets().place is Place.SESSION
    store = SettingsStore()
    with pytest.raises(NoSecretStore, match="no keyring"):
        store.save("mail", mail())
    assert sorted(path.name for path in tmp_path.iterdir() if path.suffix == ".cfg") == []
    for path in files_under(hearth_home):
        assert PASSWORD.encode() not in path.read_bytes(), path
    # Plain fields were kept; the password is asked for each session instead.
    with pytest.raises(SettingsIncomplete, match="missing password") as raised:
        store.load("mail", MailSettings)
    assert raised.value.missing == ("password",)
    store.hold("mail", {"password": "asked"})
    loaded = store.load("mail", MailSettings)
    assert (loaded.host, loaded.password.get_secret_value()) == ("imap.example.org", "asked")


def plaintext(tmp: Path) -> PlaintextKeyring:
    backend = PlaintextKeyring()
    backend.file_path = str(tmp / "plaintext.cfg")
    return backend


def unkeyed_cryptfile(tmp: Path) -> CryptFileKeyring:
    backend = CryptFileKeyring()
    backend.file_path = str(tmp / "cryptfile.cfg")
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


def test_saving_leaves_no_temporary_files(secure_keyring: SystemKeyring) -> None:
    store = SettingsStore()
    for port in (993, 994):
        store.save("mail", mail(port=port))
    assert [path.name for path in store.folder.iterdir()] == ["mail.json"]


def test_unreadable_or_invalid_settings_are_reported(secure_keyring: SystemKeyring) -> None:
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
