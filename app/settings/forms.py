"""Reading and completing connector settings for a form, through SettingsStore only. No Qt here.

A form needs what the store cannot give directly: the saved plain values even when the set is
incomplete, and whether each secret is stored, without ever showing it. Loading through a
lenient copy of the settings model (every field optional, secret markers kept) gives both.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, cast

import pydantic

from hearth.secrets import SecretStorageUnavailable
from hearth.settings.model import SettingsError, SettingsStore, secret_fields


@dataclass(frozen=True)
class Saved:
    """A connector's stored plain values, the names of the secrets stored, and why those could
    not be read (Hearth's password store is locked, the keyring refused), if they could not."""

    values: dict[str, Any] = field(default_factory=dict)
    secrets_stored: frozenset[str] = frozenset()
    secrets_unread: str = ""


def read_saved(store: SettingsStore, connector: str, model: type[pydantic.BaseModel]) -> Saved:
    if not store.is_saved(connector):
        return Saved()
    unread = ""
    try:
        loaded = store.load(connector, lenient(model))
    except SecretStorageUnavailable as error:
        loaded, unread = store.load(connector, lenient(model), with_secrets=False), str(error)
    secrets = set(secret_fields(model))
    values = loaded.model_dump(mode="json", exclude=secrets, exclude_none=True)
    stored = frozenset(name for name in secrets if getattr(loaded, name) is not None)
    return Saved(values, stored, unread)


def hidden_fields(model: type[pydantic.BaseModel]) -> set[str]:
    """Fields another page manages, marked `json_schema_extra={"form": False}`: not shown."""
    return {
        name
        for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("form") is False
    }


def complete_settings(
    store: SettingsStore,
    connector: str,
    model: type[pydantic.BaseModel],
    entered: dict[str, Any],
) -> pydantic.BaseModel:
    """The settings as entered; stored values fill blank secrets and fields not on the form."""
    keep = [name for name in secret_fields(model) if name not in entered]
    keep += [name for name in hidden_fields(model) if name not in entered]
    kept: dict[str, Any] = {}
    if keep and store.is_saved(connector):
        try:
            stored = store.load(connector, lenient(model))
        except SecretStorageUnavailable:
            # Unread secrets stay None, and saving None keeps what is stored.
            stored = store.load(connector, lenient(model), with_secrets=False)
        kept = {name: getattr(stored, name) for name in keep if getattr(stored, name) is not None}
    try:
        return model.model_validate({**kept, **entered})
    except pydantic.ValidationError as error:
        raise SettingsError(_problems(model, error)) from None


@functools.cache
def lenient(model: type[pydantic.BaseModel]) -> type[pydantic.BaseModel]:
    """`model` with every field optional and defaulting to None; secrets stay secret."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else None
        annotation = cast(Any, info.annotation)
        fields[name] = (annotation | None, pydantic.Field(None, json_schema_extra=extra))
    return pydantic.create_model(f"Lenient{model.__name__}", **fields)


def _problems(model: type[pydantic.BaseModel], error: pydantic.ValidationError) -> str:
    """ "Check these fields: Port is required; Host: …" in the form's own words."""
    found = []
    for problem in error.errors():
        name = str(problem["loc"][0]) if problem["loc"] else ""
        info = model.model_fields.get(name)
        title = (info.title if info else None) or name.replace("_", " ").title() or "Settings"
        if problem["type"] == "missing":
            found.append(f"{title} is required")
        else:
            found.append(f"{title}: {problem['msg'].lower()}")
    return "Check these fields: " + "; ".join(found) + "."
