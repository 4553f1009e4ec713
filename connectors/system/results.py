"""What the system tools return: typed results whose JSON the model reads."""

from __future__ import annotations

import pydantic

from hearth import ToolResult
from hearth.connectors.system.controls import Setting

SettingValue = bool | int


class Change(ToolResult):
    """One setting changed: its value before (the undo) and after, as read back."""

    setting: Setting
    before: SettingValue
    after: SettingValue


class SettingChanged(ToolResult):
    """A setting change, verified by reading it back; `changed` is what undo restores."""

    changed: list[Change]
    note: str | None = None


class SystemStatus(ToolResult):
    """Each setting as read now; what cannot be read here is in `unsupported`, with why."""

    omitted_when_empty = frozenset(
        {"wifi_network", "battery_minutes_left", "unsupported", "note", "on_power"}
    )

    wifi: bool | None = None
    wifi_network: str | None = None
    volume: int | None = None
    mute: bool | None = None
    brightness: int | None = None
    do_not_disturb: bool | None = None
    battery_percent: int | None = None
    on_power: bool | None = None
    battery_minutes_left: int | None = None
    unsupported: dict[str, str] = pydantic.Field(default_factory=dict)
    note: str | None = None
