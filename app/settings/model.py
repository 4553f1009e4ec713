"""Connector settings: plain fields as JSON in the config dir, secret fields in `hearth.secrets`.

A field is secret when its type is `SecretStr` or it carries `json_schema_extra={"secret": True}`.
Secrets are never written beside the plain fields: they go where `hearth.secrets` keeps them
(the platform keyring, or Hearth's own encrypted store), and where there is neither,
`SecretStorageUnavailable` tells the caller to hold them for the session.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pydantic
from pydantic_core import to_jsonable_python

from hearth import paths
from hearth.errors import HearthError
from hearth.secrets import Secrets, shared_secrets

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_SECRET_TYPES = (pydantic.SecretStr, pydantic.SecretBytes)

Settings = TypeVar("Settings", bound=pydantic.BaseModel)


class SettingsError(HearthError):
    """Connector settings could not be read, saved or validated."""


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
    """Whether a model field holds a secret (kept by `hearth.secrets`, never in the JSON)."""
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


class SettingsStore:
    """Saves and loads connector settings; secrets go only where `hearth.secrets` keeps them."""

    def __init__(self, folder: Path | None = None, secrets: Secrets | None = None) -> None:
        self._folder = folder
        self._secrets = secrets

    @property
    def secrets(self) -> Secrets:
        return self._secrets if self._secrets is not None else shared_secrets()

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
        # A secret left empty keeps the stored one (the form's "leave blank to keep it"), so
        # settings read while the store was locked never erase a password; `delete` forgets.
        for name, value in values.items():
            if value is not None:
                self.secrets.set(_key(connector, name), value)

    def ask_when_needed(self, connector: str, name: str, ask: Callable[[], str]) -> None:
        """Ask for `connector`'s secret `name` with `ask` when it is first read, this session."""
        self.secrets.ask_when_needed(_key(connector, name), ask)

    def hold(self, connector: str, secrets: Mapping[str, str]) -> None:
        """Use `secrets` for `connector` this session only, in memory, whatever is stored."""
        for name, value in secrets.items():
            self.secrets.hold(_key(connector, name), value)

    def load(
        self,
        connector: str,
        model: type[Settings],
        *,
        secrets: Mapping[str, str] | None = None,
        with_secrets: bool = True,
    ) -> Settings:
        """Saved settings merged with their stored secrets and `secrets` given for this call.

        `with_secrets=False` leaves the secrets unread (unset): for the many readers that need
        an address or a schedule, never a password, and must not ask to unlock a store.
        """
        secret_names = secret_fields(model)
        data = {k: v for k, v in self._read_json(connector).items() if k not in secret_names}
        provided = dict(secrets or {})
        wanted = [name for name in secret_names if name not in provided]
        if with_secrets:
            data.update(self._read_secrets(connector, wanted))
        data.update(provided)
        try:
            return model.model_validate(data)
        except pydantic.ValidationError as error:
            raise _settings_error(connector, error) from None

    def delete(self, connector: str, model: type[pydantic.BaseModel]) -> None:
        """Forget a connector's settings, its stored secrets included."""
        self.path(connector).unlink(missing_ok=True)
        for name in secret_fields(model):
            self.secrets.delete(_key(connector, name))

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
        found = {name: self.secrets.get(_key(connector, name)) for name in names}
        return {name: value for name, value in found.items() if value is not None}


def _key(connector: str, name: str) -> str:
    return f"{connector}.{name}"


def _secret_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, _SECRET_TYPES):
        secret = value.get_secret_value()
        return secret.decode() if isinstance(secret, bytes) else secret
    return value if isinstance(value, str) else json.dumps(to_jsonable_python(value))


def _settings_error(connector: str, error: pydantic.ValidationError) -> SettingsError:
    missing = tuple(str(e["loc"][0]) for e in error.errors() if e["type"] == "missing")
    if missing and len(missing) == error.error_count():
        return SettingsIncomplete(connector, missing)
    problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
    return SettingsError(f"{connector} settings are invalid: {problems}")


def _check_name(connector: str) -> None:
    if not _NAME.fullmatch(connector):
        raise SettingsError(f"connector name {connector!r} must be lower-case, like 'mail'")
