"""The calendar connector's settings: a CalDAV account, granted ICS files, the user's hours."""

from __future__ import annotations

import zoneinfo
from pathlib import Path

import pydantic

from hearth import read_fingerprint


class CalendarSettings(pydantic.BaseModel):
    """Saved by the Accounts page and `hearth calendar`; the password is kept by hearth.secrets."""

    server: str = pydantic.Field(
        default="",
        title="CalDAV server",
        description="The address of your calendar server, e.g. https://cloud.example.com. "
        "Nextcloud, Fastmail, iCloud, Google (with an app password) and Radicale work; "
        "Hearth finds the calendars from the bare address.",
    )
    username: str = pydantic.Field(default="", title="User name")
    password: pydantic.SecretStr | None = pydantic.Field(
        default=None,
        title="Password",
        description="Use an app password where your provider offers one. Kept in the "
        "keyring (or Hearth's password store), never in a settings file.",
    )
    trusted_certificate: str = pydantic.Field(
        default="",
        title="Trusted certificate (SHA-256)",
        description="Only for a server with a self-signed certificate: its SHA-256 "
        "fingerprint, which 'Test connection' shows. Any other certificate is refused.",
    )
    ics_files: list[str] = pydantic.Field(
        default_factory=list,
        title="Calendar files",
        description="Full paths of .ics files, or folders of them (an exported or synced "
        "calendar), one per line. Hearth may change the events in them.",
    )
    time_zone: str = pydantic.Field(
        default="",
        title="Time zone",
        description="An IANA name such as Europe/Berlin; empty means this computer's zone.",
    )
    day_starts: int = pydantic.Field(default=9, ge=0, le=23, title="Working day starts (hour)")
    day_ends: int = pydantic.Field(default=17, ge=1, le=24, title="Working day ends (hour)")
    sync_minutes: int = pydantic.Field(default=15, ge=1, le=1440, title="Sync every (minutes)")

    @pydantic.field_validator("trusted_certificate")
    @classmethod
    def _fingerprint(cls, value: str) -> str:
        return read_fingerprint(value)

    @pydantic.field_validator("ics_files")
    @classmethod
    def _full_paths(cls, paths: list[str]) -> list[str]:
        # A path that is missing now stays: the status line says so, and it may come back.
        cleaned = [str(Path(path.strip()).expanduser()) for path in paths if path.strip()]
        relative = [path for path in cleaned if not Path(path).is_absolute()]
        if relative:
            raise ValueError(f"use full paths for calendar files, not {relative[0]!r}")
        return list(dict.fromkeys(cleaned))

    @pydantic.field_validator("time_zone")
    @classmethod
    def _known_zone(cls, zone: str) -> str:
        zone = zone.strip()
        if zone:
            try:
                zoneinfo.ZoneInfo(zone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise ValueError(
                    f"unknown time zone {zone!r}; use a name like Europe/Berlin"
                ) from None
        return zone

    @pydantic.model_validator(mode="after")
    def _day_in_order(self) -> CalendarSettings:
        if self.day_ends <= self.day_starts:
            raise ValueError("the working day must end after it starts")
        return self
