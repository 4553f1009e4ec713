"""The system tools: read every setting, and change one at a time with consent.

Each change tool touches one fixed setting (its `resource`), so rules name it ("volume", or a
range, "volume:0-60"); every change is read back and its old value kept as the undo.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

import pydantic

from hearth import tool
from hearth.connectors.system.changing import change, revert, shown, words
from hearth.connectors.system.controls import Setting, Value
from hearth.connectors.system.errors import SystemSettingError
from hearth.connectors.system.machine import Machine
from hearth.connectors.system.reading import read_status
from hearth.connectors.system.results import SettingChanged, SystemStatus

Percent = Annotated[int, pydantic.Field(ge=0, le=100)]


def _changes(
    setting: Setting,
    *,
    keywords: tuple[str, ...],
    check: str,
    preview: str,
    range_arg: str | None = None,
) -> Callable[[Callable[..., Any]], Any]:
    """`@tool` for a method that changes `setting` alone and is undone by `undo`.

    Rules name the setting (the tool's fixed `resource`), or for a level a range of it
    (`range_arg`); `check` and `preview` name the methods that look before anyone is asked.
    """
    return tool(
        effect="system",
        resource=setting,
        scope_kind="setting",
        range_arg=range_arg,
        keywords=keywords,
        check=check,
        preview=preview,
        undo="undo",
    )


class SystemTools:
    """The system connector's tools, over the controls of one `Machine`."""

    machine: Machine

    @tool(
        effect="read",
        keywords=("status", "battery", "charge", "wifi", "volume", "brightness", "settings"),
    )
    def status(self) -> SystemStatus:
        """Read Wi-Fi, volume, mute, brightness, do-not-disturb and the battery."""
        return read_status(self.machine)

    @_changes(
        "wifi",
        keywords=("wifi", "wi-fi", "wireless", "network", "internet", "offline", "online"),
        check="check_wifi",
        preview="preview_wifi",
    )
    def set_wifi(self, enabled: bool) -> SettingChanged:
        """Turn Wi-Fi on or off.

        Args:
            enabled: True turns Wi-Fi on, False turns it off.
        """
        return self._set("wifi", enabled)

    @_changes(
        "volume",
        keywords=("volume", "sound", "louder", "quieter", "loud", "quiet", "speaker"),
        check="check_volume",
        preview="preview_volume",
        range_arg="level",
    )
    def set_volume(self, level: Percent) -> SettingChanged:
        """Set the speaker volume.

        Args:
            level: Volume in percent, 0 to 100.
        """
        return self._set("volume", level)

    @_changes(
        "mute",
        keywords=("mute", "unmute", "silence", "sound", "volume"),
        check="check_mute",
        preview="preview_mute",
    )
    def mute(self, muted: bool) -> SettingChanged:
        """Mute or unmute the speakers; the volume level is kept.

        Args:
            muted: True mutes, False unmutes.
        """
        return self._set("mute", muted)

    @_changes(
        "brightness",
        keywords=("brightness", "bright", "dim", "darker", "brighter", "screen", "display"),
        check="check_brightness",
        preview="preview_brightness",
        range_arg="level",
    )
    def set_brightness(self, level: Percent) -> SettingChanged:
        """Set the screen brightness.

        Args:
            level: Brightness in percent, 0 to 100.
        """
        return self._set("brightness", level)

    @_changes(
        "do_not_disturb",
        keywords=("disturb", "dnd", "notifications", "focus", "quiet", "interruptions"),
        check="check_do_not_disturb",
        preview="preview_do_not_disturb",
    )
    def set_do_not_disturb(self, enabled: bool) -> SettingChanged:
        """Turn do-not-disturb on or off: on hides notification pop-ups.

        Args:
            enabled: True turns do-not-disturb on, False turns it off.
        """
        return self._set("do_not_disturb", enabled)

    def undo(self, arguments: Mapping[str, Any], result: SettingChanged) -> str:
        said = [revert(self.machine.control(done.setting), done) for done in result.changed]
        return "; ".join(said) or "nothing was changed"

    def _set(self, setting: Setting, value: Value) -> SettingChanged:
        control = self.machine.control(setting)
        try:
            done = change(control, value)
        except SystemSettingError:
            self.machine.forget()
            raise
        if done.before == done.after:
            note = f"{words(setting)} was already {shown(done.after)}"
        else:
            note = f"{words(setting)} is {shown(done.after)} now (was {shown(done.before)})"
        return SettingChanged(changed=[done], note=f"{note}, using {control.backend}")

    def _preview(self, setting: Setting, value: object) -> str:
        try:
            control = self.machine.control(setting)
            now = f" (it is {shown(control.read())} now, using {control.backend})"
        except SystemSettingError:
            now = ""
        if isinstance(value, bool):
            return f"Turn {words(setting)} {shown(value)}{now}"
        return f"Set {words(setting)} to {shown(value) if isinstance(value, int) else value}{now}"

    def check_wifi(self, arguments: Mapping[str, Any]) -> None:
        self.machine.control("wifi")

    def check_volume(self, arguments: Mapping[str, Any]) -> None:
        self.machine.control("volume")

    def check_mute(self, arguments: Mapping[str, Any]) -> None:
        self.machine.control("mute")

    def check_brightness(self, arguments: Mapping[str, Any]) -> None:
        self.machine.control("brightness")

    def check_do_not_disturb(self, arguments: Mapping[str, Any]) -> None:
        self.machine.control("do_not_disturb")

    def preview_wifi(self, arguments: Mapping[str, Any]) -> str:
        return self._preview("wifi", arguments.get("enabled"))

    def preview_volume(self, arguments: Mapping[str, Any]) -> str:
        return self._preview("volume", arguments.get("level"))

    def preview_mute(self, arguments: Mapping[str, Any]) -> str:
        return self._preview("mute", arguments.get("muted"))

    def preview_brightness(self, arguments: Mapping[str, Any]) -> str:
        return self._preview("brightness", arguments.get("level"))

    def preview_do_not_disturb(self, arguments: Mapping[str, Any]) -> str:
        return self._preview("do_not_disturb", arguments.get("enabled"))
