"""Wi-Fi on Linux through NetworkManager's `nmcli`: the radio on or off, and the network joined.

nmcli's terse mode (`-t`) prints one record per line with fields joined by ':'; a ':' or '\\'
inside a value is escaped with '\\' (NetworkManager, src/nmcli/utils.c). A failed command
prints "Error: ..." on stderr; exit status 8 means NetworkManager is not running.
"""

from __future__ import annotations

from typing import ClassVar

from hearth.connectors.system.commands import Output, Runner
from hearth.connectors.system.controls import Control, Setting, Value, checked_switch
from hearth.connectors.system.errors import CommandFailed, SystemSettingError

NM_NOT_RUNNING = 8  # NMC_RESULT_ERROR_NM_NOT_RUNNING in nmcli's NMCResultCode
_RADIO_STATES = {"enabled": True, "disabled": False}
# How NetworkManager words a polkit refusal (src/core/nm-manager.c, src/libnm-core-aux-intern).
_REFUSALS = ("not authorized", "insufficient privileges")


class NotAuthorized(SystemSettingError):
    """NetworkManager (through polkit) does not let this user change the setting."""


class NmcliWifi(Control):
    """The Wi-Fi radio through `nmcli radio wifi`; `detail()` names the network joined."""

    setting: ClassVar[Setting] = "wifi"
    backend: ClassVar[str] = "nmcli"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("nmcli") is None:
            return "nmcli is not installed (NetworkManager)"
        try:
            done = self.runner.run(["nmcli", "-t", "-f", "RUNNING", "general"])
        except CommandFailed as error:
            return str(error)
        if done.returncode == NM_NOT_RUNNING:
            return "NetworkManager is not running"
        if done.returncode != 0:
            return str(_failure(done))
        return ""

    def read(self) -> bool:
        state = self._nmcli("-t", "-f", "WIFI", "radio").stdout.strip()
        if state not in _RADIO_STATES:
            raise CommandFailed(f"nmcli gave an unexpected Wi-Fi radio state: {state[:80]!r}")
        return _RADIO_STATES[state]

    def write(self, value: Value) -> None:
        self._nmcli("radio", "wifi", "on" if checked_switch(value) else "off")

    def detail(self) -> str:
        """The name (SSID) of the Wi-Fi network joined now, or "" when none is."""
        listing = self._nmcli("-t", "-f", "ACTIVE,SSID", "device", "wifi", "list", "--rescan", "no")
        for line in listing.stdout.splitlines():
            if not line:
                continue
            fields = terse_fields(line)
            if len(fields) != 2:
                raise CommandFailed(f"nmcli gave an unexpected Wi-Fi list line: {line[:80]!r}")
            if fields[0] == "yes":
                return fields[1]
        return ""

    def _nmcli(self, *args: str) -> Output:
        done = self.runner.run(["nmcli", *args])
        if done.returncode != 0:
            raise _failure(done)
        return done


def terse_fields(line: str) -> list[str]:
    """Split one line of `nmcli -t` output into its fields, undoing nmcli's '\\' escapes."""
    fields: list[str] = []
    current: list[str] = []
    chars = iter(line)
    for char in chars:
        if char == "\\":
            current.append(next(chars, "\\"))
        elif char == ":":
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
    fields.append("".join(current))
    return fields


def _failure(done: Output) -> SystemSettingError:
    said = (done.stderr.strip() or done.stdout.strip()).splitlines()
    why = said[0] if said else f"exit status {done.returncode}"
    why = why.removeprefix("Error: ")
    if done.returncode == NM_NOT_RUNNING:
        return CommandFailed("NetworkManager is not running, so Wi-Fi cannot be read or changed")
    if any(refusal in why.lower() for refusal in _REFUSALS):
        return NotAuthorized(
            f"NetworkManager refused: {why} Ask an administrator to allow this user to switch "
            "Wi-Fi (polkit action org.freedesktop.NetworkManager.enable-disable-wifi)."
        )
    return CommandFailed(f"nmcli failed: {why}")
