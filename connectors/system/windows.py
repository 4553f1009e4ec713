"""Windows backends: Wi-Fi through netsh, volume and mute through pycaw (Core Audio), brightness
through WMI in PowerShell. Windows has no supported command for Focus assist."""

from __future__ import annotations

import contextlib
import importlib
import math
import re
import threading
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar

from hearth.connectors.system.commands import Output, Runner
from hearth.connectors.system.controls import Control, Setting, Value, checked_level, checked_switch
from hearth.connectors.system.errors import CommandFailed, SystemSettingError

NOT_OFFERED: Mapping[Setting, str] = MappingProxyType(
    {"do_not_disturb": "Windows has no supported command for Focus assist / Do not disturb"}
)

# Windows' own names for a Wi-Fi adapter ("WLAN" in German, "Wireless Network Connection"
# before Windows 8), for finding one that is switched off and so missing from `netsh wlan`.
_WIFI_NAME = re.compile(r"^(Wi-Fi|WiFi|WLAN|Wireless Network Connection)( [0-9]+)?$", re.I)
_POWERSHELL = ["powershell", "-NoProfile", "-NonInteractive", "-Command"]
_READ_BRIGHTNESS = (
    "(Get-CimInstance -Namespace root/wmi -ClassName WmiMonitorBrightness).CurrentBrightness"
)
_SET_BRIGHTNESS = (
    "Invoke-CimMethod -InputObject (Get-CimInstance -Namespace root/wmi -ClassName "
    "WmiMonitorBrightnessMethods) -MethodName WmiSetBrightness "
    "-Arguments @{{Timeout=0; Brightness={level}}}"
)
# PowerShell takes seconds to start on a cold machine, more than other commands need.
_POWERSHELL_TIMEOUT_S = 15.0
_NO_PYCAW = "pycaw is not installed (Windows only)"
_com = threading.local()


def controls(runner: Runner) -> list[Control]:
    """Every Windows control, in order of preference."""
    return [NetshWifi(runner), PycawVolume(), PycawMute(), WmiBrightness(runner)]


def percent_from_scalar(scalar: float) -> int:
    """Core Audio's master volume (0.0 to 1.0) as a whole percent."""
    if not (math.isfinite(scalar) and 0.0 <= scalar <= 1.0):
        raise SystemSettingError(f"Windows reported a volume Hearth cannot read: {scalar!r}")
    return round(scalar * 100)


def scalar_from_percent(percent: int) -> float:
    """A whole percent as Core Audio's master volume scalar (0.0 to 1.0)."""
    return checked_level(percent) / 100


def _unreadable(program: str, output: Output) -> SystemSettingError:
    said = (output.stdout.strip() or output.stderr.strip())[:200] or "nothing"
    return SystemSettingError(f"{program} printed something Hearth cannot read: {said!r}")


def _wlan_interfaces(text: str) -> list[dict[str, str]]:
    """`netsh wlan show interfaces` as one dict per interface, keyed by its labels."""
    found: list[dict[str, str]] = []
    key = ""
    for line in text.splitlines():
        label, colon, value = line.partition(":")
        if not colon:
            if found and key and line.strip():
                found[-1][key] += " " + line.strip()  # "Radio status" continues below
            continue
        key = label.strip()
        if key == "Name":
            found.append({})
        if found:
            found[-1][key] = value.strip()
    return found


class NetshWifi(Control):
    """The Wi-Fi adapter, switched on and off as an interface (needs administrator rights)."""

    setting: ClassVar[Setting] = "wifi"
    backend: ClassVar[str] = "netsh"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._name = ""

    def unsupported(self) -> str:
        if self.runner.which("netsh") is None:
            return "netsh is not installed (Windows only)"
        try:
            self._interface()
        except SystemSettingError as error:
            return str(error)
        return ""

    def read(self) -> bool:
        name = self._interface()
        out = self.runner.run(["netsh", "interface", "show", "interface", f"name={name}"])
        for line in out.checked().stdout.splitlines():
            label, _, value = line.partition(":")
            if label.strip() == "Administrative state" and value.strip() in ("Enabled", "Disabled"):
                return value.strip() == "Enabled"
        raise _unreadable("netsh", out)

    def write(self, value: Value) -> None:
        admin = "admin=enabled" if checked_switch(value) else "admin=disabled"
        name = self._interface()
        out = self.runner.run(["netsh", "interface", "set", "interface", f"name={name}", admin])
        if out.returncode != 0 and "elevation" in (out.stdout + out.stderr).lower():
            raise CommandFailed(
                "turning Wi-Fi on or off with netsh needs administrator rights: run Hearth as "
                "administrator, or use the Wi-Fi button in Windows' quick settings"
            )
        out.checked()

    def detail(self) -> str:
        name = self._interface()
        out = self.runner.run(["netsh", "wlan", "show", "interfaces"])
        for found in _wlan_interfaces(out.stdout) if out.returncode == 0 else []:
            if found.get("Name") != name:
                continue
            if "Off" in found.get("Radio status", ""):
                return f"the Wi-Fi radio is off ({found['Radio status']})"
            if found.get("State") == "connected" and found.get("SSID"):
                return f"connected to {found['SSID']}"
            return "not connected" if found.get("State") == "disconnected" else ""
        return ""

    def _interface(self) -> str:
        if self._name:
            return self._name
        out = self.runner.run(["netsh", "wlan", "show", "interfaces"])
        listed = _wlan_interfaces(out.stdout) if out.returncode == 0 else []
        names = [found["Name"] for found in listed if found.get("Name")]
        self._name = names[0] if names else self._switched_off()
        if not self._name:
            said = (out.stdout.strip() or out.stderr.strip()).splitlines()[:1]
            why = f": netsh says {said[0]!r}" if said else ""
            raise SystemSettingError(f"no Wi-Fi interface found{why}")
        return self._name

    def _switched_off(self) -> str:
        # A disabled adapter vanishes from `netsh wlan`; without this, Wi-Fi turned off here
        # could not be turned back on by a later Hearth.
        out = self.runner.run(["netsh", "interface", "show", "interface"])
        for line in out.stdout.splitlines() if out.returncode == 0 else []:
            row = line.split(None, 3)
            if len(row) == 4 and row[0] == "Disabled" and _WIFI_NAME.match(row[3].strip()):
                return row[3].strip()
        return ""


def _core_audio() -> tuple[ModuleType, ModuleType]:
    # Imported here: pycaw and comtypes exist only on Windows.
    try:
        return importlib.import_module("pycaw.pycaw"), importlib.import_module("comtypes")
    except ImportError:
        raise SystemSettingError(_NO_PYCAW) from None


def _speakers_volume() -> Any:
    """The default output device's IAudioEndpointVolume (a COM object, hence Any)."""
    pycaw, comtypes = _core_audio()
    if not getattr(_com, "ready", False):
        # Each worker thread needs COM before using it; OSError means it was already set up
        # in another threading model, which serves as well.
        with contextlib.suppress(OSError):
            comtypes.CoInitialize()
        _com.ready = True
    try:
        speakers = pycaw.AudioUtilities.GetSpeakers()
        if speakers is None:
            raise SystemSettingError("no sound output device found")
        if hasattr(speakers, "EndpointVolume"):  # pycaw 2024 and later wrap the device
            return speakers.EndpointVolume
        interface = pycaw.IAudioEndpointVolume
        activated = speakers.Activate(interface._iid_, comtypes.CLSCTX_ALL, None)
        return activated.QueryInterface(interface)
    except (comtypes.COMError, OSError) as error:
        raise SystemSettingError(f"no sound output device Hearth can use: {error}") from None


def _com_call(action: str, call: Any, *args: Any) -> Any:
    _, comtypes = _core_audio()
    try:
        return call(*args)
    except (comtypes.COMError, OSError) as error:
        raise CommandFailed(f"Windows could not {action}: {error}") from None


class _Pycaw(Control):
    """A setting of the default sound output device, through Core Audio."""

    backend: ClassVar[str] = "pycaw"

    def unsupported(self) -> str:
        try:
            _speakers_volume()
        except SystemSettingError as error:
            return str(error)
        return ""


class PycawVolume(_Pycaw):
    """The master volume of the default output device, in percent."""

    setting: ClassVar[Setting] = "volume"

    def read(self) -> int:
        volume = _speakers_volume()
        scalar = _com_call("read the volume", volume.GetMasterVolumeLevelScalar)
        return percent_from_scalar(float(scalar))

    def write(self, value: Value) -> None:
        scalar = scalar_from_percent(value)
        volume = _speakers_volume()
        _com_call("change the volume", volume.SetMasterVolumeLevelScalar, scalar, None)


class PycawMute(_Pycaw):
    """Whether the default output device is muted."""

    setting: ClassVar[Setting] = "mute"

    def read(self) -> bool:
        return bool(_com_call("read mute", _speakers_volume().GetMute))

    def write(self, value: Value) -> None:
        muted = 1 if checked_switch(value) else 0
        _com_call("change mute", _speakers_volume().SetMute, muted, None)


class WmiBrightness(Control):
    """Built-in display brightness through WMI; external monitors usually do not offer it."""

    setting: ClassVar[Setting] = "brightness"
    backend: ClassVar[str] = "wmi"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("powershell") is None:
            return "PowerShell is not installed (Windows only)"
        try:
            self.read()
        except SystemSettingError as error:
            return str(error)
        return ""

    def read(self) -> int:
        out = self._powershell(_READ_BRIGHTNESS)
        levels = out.stdout.split()  # one line per display that has a brightness
        if not levels:
            raise self._not_offered()
        if not levels[0].isdigit():
            raise _unreadable("PowerShell", out)
        return int(levels[0])

    def write(self, value: Value) -> None:
        self._powershell(_SET_BRIGHTNESS.format(level=checked_level(value)))

    def _powershell(self, script: str) -> Output:
        out = self.runner.run([*_POWERSHELL, script], timeout=_POWERSHELL_TIMEOUT_S)
        if out.returncode != 0 and "not supported" in (out.stderr + out.stdout).lower():
            raise self._not_offered()
        return out.checked()

    def _not_offered(self) -> SystemSettingError:
        return SystemSettingError(
            "no display here offers brightness through WMI (external monitors usually do not; "
            "use the monitor's own buttons)"
        )
