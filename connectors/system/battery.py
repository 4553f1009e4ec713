"""Reading the battery: through psutil anywhere, or through UPower's `upower` on Linux."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from hearth.connectors.system.commands import Runner
from hearth.connectors.system.controls import Battery, BatteryReader
from hearth.connectors.system.errors import CommandFailed

UPOWER_DEVICES = "/org/freedesktop/UPower/devices/"
# up_device_state_to_string() in UPower; every other state means mains power is connected.
_ON_BATTERY = frozenset({"discharging", "empty", "pending-discharge"})
_MINUTES_PER = {"seconds": 1 / 60, "minutes": 1.0, "hours": 60.0, "days": 24 * 60.0}
_TIME = re.compile(r"(\d+(?:\.\d+)?) (seconds|minutes|hours|days)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")


class PsutilBattery(BatteryReader):
    """The battery through `psutil.sensors_battery()`."""

    backend: ClassVar[str] = "psutil"

    def unsupported(self) -> str:
        try:
            import psutil
        except ImportError:
            return "psutil is not installed"
        if not hasattr(psutil, "sensors_battery"):
            return "psutil cannot read the battery on this operating system"
        return ""

    def read(self) -> Battery | None:
        import psutil

        try:
            found: Any = psutil.sensors_battery()
        except OSError as error:
            raise CommandFailed(f"psutil could not read the battery: {error}") from None
        if found is None:
            return None
        left = found.secsleft
        unknown = (psutil.POWER_TIME_UNLIMITED, psutil.POWER_TIME_UNKNOWN)
        minutes = None if left in unknown or left is None or left < 0 else round(left / 60)
        # psutil says None for plugged when neither the AC adapter nor the battery tells.
        return Battery(round(found.percent), bool(found.power_plugged), minutes)


class UpowerBattery(BatteryReader):
    """The battery through `upower -e` (list devices) and `upower -i <device>` (describe)."""

    backend: ClassVar[str] = "upower"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("upower") is None:
            return "upower is not installed"
        try:
            self.runner.run(["upower", "-e"]).checked()
        except CommandFailed as error:
            return str(error)
        return ""

    def read(self) -> Battery | None:
        listed = self.runner.run(["upower", "-e"]).checked().stdout.split()
        device = _battery_path(listed)
        if device is None:
            return None
        described = self.runner.run(["upower", "-i", device]).checked().stdout
        return parse_upower_device(described)


def _battery_path(paths: list[str]) -> str | None:
    # Laptop batteries are battery_BAT0 and the like; peripherals' batteries follow them.
    batteries = [
        path
        for path in paths
        if path.startswith(UPOWER_DEVICES) and ("battery_" in path or "BAT" in path)
    ]
    batteries.sort(key=lambda path: ("BAT" not in path, path))
    return batteries[0] if batteries else None


def parse_upower_device(text: str) -> Battery:
    """A `Battery` from `upower -i` output (UPower's up_device_to_text())."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and value.strip():
            fields.setdefault(name.strip(), value.strip())
    percent = _PERCENT.fullmatch(fields.get("percentage", ""))
    state = fields.get("state")
    if percent is None or state is None:
        raise CommandFailed(f"upower gave no percentage or state for the battery: {text[:120]!r}")
    minutes = None
    if state in _ON_BATTERY and "time to empty" in fields:
        left = _TIME.fullmatch(fields["time to empty"])
        if left is None:
            raise CommandFailed(f"upower gave an unexpected time: {fields['time to empty']!r}")
        minutes = round(float(left.group(1)) * _MINUTES_PER[left.group(2)])
    return Battery(round(float(percent.group(1))), state not in _ON_BATTERY, minutes)
