"""Reading every setting at once: for the model (`SystemStatus`) and the Accounts page."""

from __future__ import annotations

from hearth import StatusItem
from hearth.connectors.system.changing import shown
from hearth.connectors.system.controls import SETTINGS, Setting, Value
from hearth.connectors.system.errors import NotSupported, SystemSettingError
from hearth.connectors.system.machine import Machine, setting_words
from hearth.connectors.system.results import SystemStatus


def read_status(machine: Machine) -> SystemStatus:
    """Each setting that can be read here, and for the rest why not."""
    values: dict[str, Value] = {}
    unsupported: dict[str, str] = {}
    network = ""
    for setting in SETTINGS:
        try:
            control = machine.control(setting)
            values[setting] = control.read()
            if setting == "wifi":
                network = control.detail()
        except SystemSettingError as error:
            unsupported[setting] = str(error)
    battery, why = machine.battery()
    if why:
        unsupported["battery"] = why
    return SystemStatus(
        wifi=_flag(values.get("wifi")),
        wifi_network=network or None,
        volume=_level(values.get("volume")),
        mute=_flag(values.get("mute")),
        brightness=_level(values.get("brightness")),
        do_not_disturb=_flag(values.get("do_not_disturb")),
        battery_percent=battery.percent if battery else None,
        on_power=battery.plugged if battery else None,
        battery_minutes_left=battery.minutes_left if battery else None,
        unsupported=unsupported,
        note=None if battery or why else "this computer has no battery",
    )


def status_items(machine: Machine) -> list[StatusItem]:
    """One line per setting for the Accounts page: its value and backend, or why not here."""
    items = [_item(machine, setting) for setting in SETTINGS]
    battery, why = machine.battery()
    if why:
        items.append(StatusItem("Battery", "not available", why, available=False))
    elif battery is None:
        items.append(StatusItem("Battery", "none", "this computer has no battery"))
    else:
        power = "on mains power" if battery.plugged else "on battery"
        left = f", {battery.minutes_left} min left" if battery.minutes_left is not None else ""
        items.append(StatusItem("Battery", f"{battery.percent}%", f"{power}{left}"))
    return items


def _item(machine: Machine, setting: Setting) -> StatusItem:
    label = setting_words(setting)
    try:
        control = machine.control(setting)
        value = control.read()
        extra = control.detail() if setting == "wifi" else ""
    except NotSupported as error:
        return StatusItem(label, "not supported here", error.reason, available=False)
    except SystemSettingError as error:
        return StatusItem(label, "not available", str(error), available=False)
    shown_value = f"{shown(value)}, {extra}" if extra else shown(value)
    return StatusItem(label, shown_value, f"via {control.backend}")


def _flag(value: Value | None) -> bool | None:
    return value if isinstance(value, bool) else None


def _level(value: Value | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
