"""This machine's candidate controls, by operating system, in preference order."""

from __future__ import annotations

import sys

from hearth.connectors.system.battery import PsutilBattery, UpowerBattery
from hearth.connectors.system.commands import CommandRunner, Runner
from hearth.connectors.system.machine import Machine

_OTHER_OS = "Hearth has no system backends for {platform}"


def this_machine(runner: Runner | None = None, platform: str = sys.platform) -> Machine:
    """The `Machine` for `platform` (sys.platform's spelling), running commands with `runner`."""
    runner = runner or CommandRunner()
    if platform.startswith("linux"):
        return linux_machine(runner)
    if platform == "darwin":
        from hearth.connectors.system import macos

        return Machine(macos.controls(runner), macos.NOT_OFFERED, [PsutilBattery()])
    if platform == "win32":
        from hearth.connectors.system import windows

        return Machine(windows.controls(runner), windows.NOT_OFFERED, [PsutilBattery()])
    reason = _OTHER_OS.format(platform=platform)
    return Machine(
        (), dict.fromkeys(("wifi", "volume", "mute", "brightness", "do_not_disturb"), reason)
    )


def linux_machine(runner: Runner) -> Machine:
    from hearth.connectors.system.linux_audio import audio_controls
    from hearth.connectors.system.linux_backlight import BrightnessctlBrightness, SysfsBrightness
    from hearth.connectors.system.linux_desktop import GsettingsDnd
    from hearth.connectors.system.linux_network import NmcliWifi

    controls = [
        NmcliWifi(runner),
        *audio_controls(runner),
        BrightnessctlBrightness(runner),
        SysfsBrightness(),
        GsettingsDnd(runner),
    ]
    return Machine(controls, batteries=[UpowerBattery(runner), PsutilBattery()])
