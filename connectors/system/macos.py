"""macOS backends: Wi-Fi through networksetup, volume and mute through osascript, brightness
through the Homebrew `brightness` tool. macOS has no command for Focus (do-not-disturb)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from hearth.connectors.system.commands import Output, Runner
from hearth.connectors.system.controls import (
    Control,
    Setting,
    Value,
    checked_level,
    checked_switch,
)
from hearth.connectors.system.errors import CommandFailed, SystemSettingError

NOT_OFFERED: Mapping[Setting, str] = MappingProxyType(
    {"do_not_disturb": "macOS has no command that reads or sets Focus"}
)

_PORT = re.compile(r"^Hardware Port: (.+)$")
_DEVICE = re.compile(r"^Device: ([a-z]+[0-9]+)$")
_POWER = re.compile(r"Power \([^)]*\): (On|Off)$")
_NETWORK = "Current Wi-Fi Network: "
_DISPLAY = re.compile(r"^display ([0-9]+): (main, )?")
_BRIGHTNESS = re.compile(r"^display ([0-9]+): brightness ([0-9]+(?:\.[0-9]+)?)$")


def controls(runner: Runner) -> list[Control]:
    """Every macOS control, in order of preference."""
    return [
        NetworksetupWifi(runner),
        OsascriptVolume(runner),
        OsascriptMute(runner),
        BrightnessTool(runner),
    ]


def _unreadable(program: str, output: Output) -> SystemSettingError:
    said = (output.stdout.strip() or output.stderr.strip())[:200] or "nothing"
    return SystemSettingError(f"{program} printed something Hearth cannot read: {said!r}")


class NetworksetupWifi(Control):
    """Wi-Fi power of the Mac's Wi-Fi hardware port (called AirPort on older macOS)."""

    setting: ClassVar[Setting] = "wifi"
    backend: ClassVar[str] = "networksetup"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("networksetup") is None:
            return "networksetup is not installed"
        try:
            self._device()
        except SystemSettingError as error:
            return str(error)
        return ""

    def read(self) -> bool:
        device = self._device()
        out = self.runner.run(["networksetup", "-getairportpower", device]).checked()
        found = _POWER.search(out.stdout.strip())
        if found is None:
            raise _unreadable("networksetup", out)
        return found.group(1) == "On"

    def write(self, value: Value) -> None:
        state = "on" if checked_switch(value) else "off"
        device = self._device()
        out = self.runner.run(["networksetup", "-setairportpower", device, state]).checked()
        # networksetup exits 0 even when it refuses, and says so in words.
        said = (out.stdout + out.stderr).strip()
        if "error" in said.lower():
            raise CommandFailed(f"networksetup failed: {said.splitlines()[0]}")

    def detail(self) -> str:
        out = self.runner.run(["networksetup", "-getairportnetwork", self._device()]).checked()
        first = out.stdout.strip().splitlines()[:1]
        if first and first[0].startswith(_NETWORK):
            return f"connected to {first[0].removeprefix(_NETWORK).strip()}"
        # "You are not associated with an AirPort network." is printed on macOS 14.4 and
        # later even while joined (the name is withheld), so it says nothing for sure.
        return ""

    def _device(self) -> str:
        out = self.runner.run(["networksetup", "-listallhardwareports"]).checked()
        port = ""
        for line in out.stdout.splitlines():
            line = line.strip()
            if named := _PORT.match(line):
                port = named.group(1)
            elif (device := _DEVICE.match(line)) and port in ("Wi-Fi", "AirPort"):
                return device.group(1)
        raise SystemSettingError("no Wi-Fi hardware port found (networksetup lists none)")


class _Osascript(Control):
    """A setting of the sound output device, through AppleScript's volume settings."""

    backend: ClassVar[str] = "osascript"
    _property: ClassVar[str]

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("osascript") is None:
            return "osascript is not installed"
        try:
            self._get()
        except SystemSettingError as error:
            return str(error)
        return ""

    def _get(self) -> str:
        script = f"{self._property} of (get volume settings)"
        out = self.runner.run(["osascript", "-e", script]).checked()
        said = out.stdout.strip()
        if said == "missing value":
            raise SystemSettingError(
                "the sound output device has no volume control that macOS can change "
                "(e.g. HDMI or a digital output); change it on the device itself"
            )
        return said

    def _set(self, script: str) -> None:
        self.runner.run(["osascript", "-e", script]).checked()


class OsascriptVolume(_Osascript):
    """The output volume in percent, as the Sound settings show it."""

    setting: ClassVar[Setting] = "volume"
    _property: ClassVar[str] = "output volume"

    def read(self) -> int:
        said = self._get()
        if not said.isdigit():
            raise SystemSettingError(f"osascript printed something Hearth cannot read: {said!r}")
        return int(said)

    def write(self, value: Value) -> None:
        self._set(f"set volume output volume {checked_level(value)}")


class OsascriptMute(_Osascript):
    """Whether the sound output is muted."""

    setting: ClassVar[Setting] = "mute"
    _property: ClassVar[str] = "output muted"

    def read(self) -> bool:
        said = self._get()
        if said not in ("true", "false"):
            raise SystemSettingError(f"osascript printed something Hearth cannot read: {said!r}")
        return said == "true"

    def write(self, value: Value) -> None:
        self._set(f"set volume output muted {'true' if checked_switch(value) else 'false'}")


class BrightnessTool(Control):
    """Display brightness through the `brightness` tool (github.com/nriley/brightness).

    It reads and sets one display: the main one when it has a brightness, else the first
    that does. External monitors usually have none the tool can reach."""

    setting: ClassVar[Setting] = "brightness"
    backend: ClassVar[str] = "brightness"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("brightness") is None:
            return "the brightness tool is not installed (brew install brightness)"
        try:
            self._display()
        except SystemSettingError as error:
            return str(error)
        return ""

    def read(self) -> int:
        return round(self._display()[1] * 100)

    def write(self, value: Value) -> None:
        fraction = f"{checked_level(value) / 100:.2f}"
        index = self._display()[0]
        out = self.runner.run(["brightness", "-d", str(index), fraction]).checked()
        # The tool exits 0 when a display refuses; only its error line tells.
        for line in out.stderr.splitlines():
            if "failed to set brightness" in line:
                raise CommandFailed(f"brightness failed: {line.strip()}")

    def _display(self) -> tuple[int, float]:
        out = self.runner.run(["brightness", "-l"]).checked()
        main: int | None = None
        levels: dict[int, float] = {}
        for line in out.stdout.splitlines():
            line = line.strip()
            if level := _BRIGHTNESS.match(line):
                levels.setdefault(int(level.group(1)), float(level.group(2)))
            elif display := _DISPLAY.match(line):
                if display.group(2) and main is None:
                    main = int(display.group(1))
            elif line:
                raise _unreadable("brightness", out)
        if main in levels:
            return main, levels[main]
        if levels:
            first = min(levels)
            return first, levels[first]
        if "failed to get brightness" in out.stderr:
            raise SystemSettingError(
                "no display here lets the brightness tool read its brightness "
                "(external monitors usually do not)"
            )
        if not out.stdout.strip() and not out.stderr.strip():
            raise SystemSettingError("the brightness tool found no display")
        raise _unreadable("brightness", out)
