"""Connector settings: plain fields as JSON in the config dir, secret fields only in the keyring.

A field is secret when its type is `SecretStr` or it carries `json_schema_extra={"secret": True}`.
With no secure keyring backend (none at all, a plaintext one, or any with priority below 1),
secrets are never stored: `SecretStorageUnavailable` tells the caller to ask each session.
"""

from __future__ import annotations

import contextlib
import json
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import keyring
import keyring.backend
import keyring.errors
import pydantic
from keyring.backends import chainer, fail
from pydantic_core import to_jsonable_python

from hearth import paths
from hearth.errors import HearthError

SERVICE = "hearth"
MIN_KEYRING_PRIORITY = 1
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_SECRET_TYPES = (pydantic.SecretStr, pydantic.SecretBytes)

Settings = TypeVar("Settings", bound=pydantic.BaseModel)


class SettingsError(HearthError):
    """Connector settings could not be read, saved or validated."""


class SecretStorageUnavailable(SettingsError):
    """No secure keyring backend is available, so secrets are not stored."""


class SettingsIncomplete(SettingsError):
    """Required settings are missing, e.g. a password that has to be asked for this session."""

    def __init__(self, connector: str, missing: tuple[str, ...]) -> None:
        super().__init__(f"{connector} is not fully set up: missing {', '.join(missing)}")
        self.connector = connector
        self.missing = missing


@dataclass(frozen=True)
class FormField:
    """One input of a connector's setup form, described well enough to render it generically."""

    name: str
    title: str
    type: str
    required: bool
    secret: bool
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    format: str | None = None


def is_secret(field: pydantic.fields.FieldInfo) -> bool:
    """Whether a model field holds a secret (goes to the keyring, never to disk)."""
    extra = field.json_schema_extra
    if isinstance(extra, dict) and extra.get("secret") is True:
        return True
    return _mentions_secret_type(field.annotation)


def _mentions_secret_type(annotation: object) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, _SECRET_TYPES):
        return True
    return any(_mentions_secret_type(arg) for arg in typing.get_args(annotation))


def secret_fields(model: type[pydantic.BaseModel]) -> list[str]:
    return [name for name, field in model.model_fields.items() if is_secret(field)]


def form_fields(model: type[pydantic.BaseModel]) -> list[FormField]:
    """The setup form for a settings model, in field order."""
    schema = model.model_json_schema(by_alias=False)
    defs: Mapping[str, Any] = schema.get("$defs", {})
    fields = []
    for name, info in model.model_fields.items():
        prop = _plain_property(schema["properties"][name], defs)
        secret = is_secret(info)
        required = info.is_required()
        default = None if required or secret else info.get_default(call_default_factory=True)
        fields.append(
            FormField(
                name=name,
                title=info.title or name.replace("_", " ").title(),
                type=str(prop.get("type", "string")),
                required=required,
                secret=secret,
                default=to_jsonable_python(default),
                description=info.description or "",
                choices=tuple(prop.get("enum", ())),
                format=prop.get("format"),
            )
        )
    return fields


def _plain_property(prop: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A property schema with `$ref` followed and an optional's `null` branch dropped."""
    merged = dict(prop)
    options = [o for o in merged.pop("anyOf", ()) if o.get("type") != "null"]
    if len(options) == 1:
        merged = {**options[0], **merged}
    ref = merged.pop("$ref", None)
    if isinstance(ref, str):
        merged = {**defs[ref.rsplit("/", 1)[-1]], **merged}
    return merged


def secure_keyring_problem() -> str | None:
    """Why the current keyring backend must not hold secrets, or None if it is secure."""
    backend = keyring.get_keyring()
    if isinstance(backend, chainer.ChainerBackend):
        # Chained backends store into the first (highest-priority) one that accepts a password.
        chained = backend.backends
        if not chained:
            return "no keyring backend is available"
        backend = chained[0]
    label = f"{type(backend).__module__}.{type(backend).__name__}"
    if isinstance(backend, fail.Keyring):
        return "no keyring backend is available"
    if "plaintext" in label.lower():
        return f"the keyring backend {label} stores secrets unencrypted"
    try:
        priority = float(type(backend).priority)
    except Exception as error:
        return f"the keyring backend {label} is unusable ({error})"
    if priority < MIN_KEYRING_PRIORITY:
        return f"the keyring backend {label} is not considered secure (priority {priority:g})"
    return None


def _unavailable(problem: str) -> SecretStorageUnavailable:
    return SecretStorageUnavailable(
        f"Hearth will not store passwords: {problem}. You will be asked for them each session; "
        "set up the system keyring (Keychain, Credential Manager, GNOME Keyring or KWallet) "
        "to have them remembered."
    )


class SettingsStore:
    """Saves and loads connector settings; secrets go only to a secure keyring."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder

    @property
    def folder(self) -> Path:
        return self._folder if self._folder is not None else paths.config_dir() / "connectors"

    def path(self, connector: str) -> Path:
        _check_name(connector)
        return self.folder / f"{connector}.json"

    def is_saved(self, connector: str) -> bool:
        return self.path(connector).exists()

    def save(self, connector: str, settings: pydantic.BaseModel) -> None:
        """Save settings; non-secret fields are written even when storing secrets then fails."""
        secrets = secret_fields(type(settings))
        plain = settings.model_dump(mode="json", exclude=set(secrets))
        paths.write_json_atomically(self.path(connector), plain)
        values = {name: _secret_text(getattr(settings, name)) for name in secrets}
        if not any(value is not None for value in values.values()):
            self._forget_secrets(connector, list(values))
            return
        problem = secure_keyring_problem()
        if problem:
            raise _unavailable(problem)
        for name, value in values.items():
            if value is None:
                self._forget_secrets(connector, [name])
            else:
                _keyring_call(keyring.set_password, SERVICE, f"{connector}.{name}", value)

    def load(
        self,
        connector: str,
        model: type[Settings],
        *,
        secrets: Mapping[str, str] | None = None,
        with_keyring: bool = True,
    ) -> Settings:
        """Saved settings merged with keyring secrets and `secrets` asked for this session.

        `with_keyring=False` leaves the keyring alone (its secrets stay unset): for the many
        readers that need an address or a schedule, never a password.
        """
        secret_names = secret_fields(model)
        data = {k: v for k, v in self._read_json(connector).items() if k not in secret_names}
        provided = dict(secrets or {})
        wanted = [name for name in secret_names if name not in provided]
        if with_keyring:
            data.update(self._read_secrets(connector, wanted))
        data.update(provided)
        try:
            return model.model_validate(data)
        except pydantic.ValidationError as error:
            raise _settings_error(connector, error) from None

    def delete(self, connector: str, model: type[pydantic.BaseModel]) -> None:
        """Forget a connector's settings, its keyring secrets included."""
        self.path(connector).unlink(missing_ok=True)
        self._forget_secrets(connector, secret_fields(model))

    def _read_json(self, connector: str) -> dict[str, Any]:
        path = self.path(connector)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise SettingsError(
                f"{path} is unreadable ({error}); set {connector} up again"
            ) from None
        if not isinstance(data, dict):
            raise SettingsError(f"{path} does not hold settings; set {connector} up again")
        return data

    def _read_secrets(self, connector: str, names: list[str]) -> dict[str, str]:
        if not names or secure_keyring_problem():
            return {}
        found = {}
        for name in names:
            value = _keyring_call(keyring.get_password, SERVICE, f"{connector}.{name}")
            if value is not None:
                found[name] = value
        return found

    def _forget_secrets(self, connector: str, names: list[str]) -> None:
        if not names or secure_keyring_problem():
            return
        for name in names:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(SERVICE, f"{connector}.{name}")


def _secret_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, _SECRET_TYPES):
        secret = value.get_secret_value()
        return secret.decode() if isinstance(secret, bytes) else secret
    return value if isinstance(value, str) else json.dumps(to_jsonable_python(value))


_Result = TypeVar("_Result")


def _keyring_call(call: Callable[..., _Result], *args: str) -> _Result:
    try:
        return call(*args)
    except keyring.errors.KeyringError as error:
        raise _unavailable(f"the keyring refused access ({error})") from None


def _settings_error(connector: str, error: pydantic.ValidationError) -> SettingsError:
    missing = tuple(str(e["loc"][0]) for e in error.errors() if e["type"] == "missing")
    if missing and len(missing) == error.error_count():
        return SettingsIncomplete(connector, missing)
    problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
    return SettingsError(f"{connector} settings are invalid: {problems}")


def _check_name(connector: str) -> None:
    if not _NAME.fullmatch(connector):
        raise SettingsError(f"connector name {connector!r} must be lower-case, like 'mail'")
