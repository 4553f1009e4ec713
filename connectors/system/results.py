"""What the system tools return: typed results whose JSON the model reads, each worded for its
card by `summary`."""

from __future__ import annotations

import pydantic

from hearth import ToolResult, shown
from hearth.connectors.system.controls import Setting

SettingValue = bool | int
SETTING_WORDS = {
    "wifi": "Wi-Fi",
    "volume": "Volume",
    "mute": "Mute",
    "brightness": "Brightness",
    "do_not_disturb": "Do not disturb",
}


class Change(ToolResult):
    """One setting changed: its value before (the undo) and after, as read back."""

    setting: Setting
    before: SettingValue
    after: SettingValue

    def summary(self) -> str:
        name = SETTING_WORDS.get(self.setting, self.setting)
        return f"{name}: {_value(self.before)} → {_value(self.after)}"


class SettingChanged(ToolResult):
    """A setting change, verified by reading it back; `changed` is what undo restores."""

    changed: list[Change]
    note: str | None = None

    def summary(self) -> str:
        return "\n".join(change.summary() for change in self.changed) or "Nothing changed."


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

    def summary(self) -> str:
        network = f" ({shown(self.wifi_network)})" if self.wifi and self.wifi_network else ""
        charging = " (on power)" if self.on_power else ""
        parts = [
            (self.wifi, f"Wi-Fi {_value(self.wifi)}{network}"),
            (self.volume, f"volume {self.volume}%"),
            (self.mute, f"mute {_value(self.mute)}"),
            (self.brightness, f"brightness {self.brightness}%"),
            (self.do_not_disturb, f"do not disturb {_value(self.do_not_disturb)}"),
            (self.battery_percent, f"battery {self.battery_percent}%{charging}"),
        ]
        read = [words for value, words in parts if value is not None]
        return ", ".join(read) or "Nothing could be read here."


def _value(value: SettingValue | None) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
