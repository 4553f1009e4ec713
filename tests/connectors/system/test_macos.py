"""The macOS backends against recordings of networksetup, osascript and `brightness` output.

Sources of the recorded formats:
- networksetup: `man networksetup` (-listallhardwareports, -getairportpower, -setairportpower,
  -getairportnetwork) and real output quoted at superuser.com/questions/267660 ("Hardware Port:
  Wi-Fi / Device: en1 / Ethernet Address: ..."). Power reads "Wi-Fi Power (en0): On" ("AirPort
  Power (en1): Off" before OS X 10.7); a wrong device prints "... is not a Wi-Fi interface." and
  "** Error: ..." yet exits 0.
- osascript: `man osascript` (result on stdout, "N:M: execution error: ... (-1728)" on stderr,
  exit 1); AppleScript's `get volume settings` gives "missing value" for a device without a
  volume control (HDMI, optical).
- brightness: github.com/nriley/brightness, brightness.c: `-l` prints "display %d: main, active,
  awake, online, built-in, ID 0x%x" then "display %d: brightness %f"; a display it cannot read
  prints "brightness: failed to get brightness of display 0x%x" on stderr; a failed set prints
  "failed to set brightness of display 0x%x" on stderr and still exits 0.
"""

from __future__ import annotations

from typing import Any

import pytest

from hearth.connectors.system import macos
from hearth.connectors.system.controls import SETTINGS
from hearth.connectors.system.errors import CommandFailed, SystemSettingError
from tests.connectors.system.recorded import Answer, RecordedRunner, said

PORTS = """
Hardware Port: Ethernet
Device: en0
Ethernet Address: a8:20:66:31:95:57

Hardware Port: Wi-Fi
Device: en1
Ethernet Address: 8c:2d:aa:33:03:e9

Hardware Port: Bluetooth PAN
Device: en4
Ethernet Address: 8c:2d:aa:33:03:ea

Hardware Port: Thunderbolt Bridge
Device: bridge0
Ethernet Address: 32:00:1b:25:92:c0

VLAN Configurations
===================
"""
OLD_PORTS = """
Hardware Port: Ethernet
Device: en0
Ethernet Address: 00:1f:5b:aa:bb:cc

Hardware Port: AirPort
Device: en1
Ethernet Address: 00:1f:5b:dd:ee:ff
"""
WIRED_ONLY = """
Hardware Port: Ethernet
Device: en0
Ethernet Address: a8:20:66:31:95:57

VLAN Configurations
===================
"""
LIST_PORTS = ("networksetup", "-listallhardwareports")
VOLUME = ("osascript", "-e", "output volume of (get volume settings)")
MUTED = ("osascript", "-e", "output muted of (get volume settings)")
DISPLAYS = """display 0: main, active, awake, online, built-in, ID 0x1
display 0: brightness 0.750000
display 1: active, awake, online, external, ID 0x2
"""
EXTERNAL_FAILS = "brightness: failed to get brightness of display 0x2\n"
LIST_DISPLAYS = ("brightness", "-l")


def recorded(answers: dict[tuple[str, ...], Answer], *programs: str) -> RecordedRunner:
    return RecordedRunner(answers, programs or ("networksetup", "osascript", "brightness"))


def test_every_setting_has_a_control_or_a_reason() -> None:
    offered = {control.setting for control in macos.controls(recorded({}))}
    assert offered | set(macos.NOT_OFFERED) == set(SETTINGS)
    assert not offered & set(macos.NOT_OFFERED)
    assert "Focus" in macos.NOT_OFFERED["do_not_disturb"]


def test_wifi_finds_the_wifi_port_and_reads_its_power() -> None:
    runner = recorded(
        {
            LIST_PORTS: said(PORTS),
            ("networksetup", "-getairportpower", "en1"): said("Wi-Fi Power (en1): On\n"),
        }
    )
    wifi = macos.NetworksetupWifi(runner)
    assert wifi.unsupported() == ""
    assert wifi.read() is True
    assert runner.calls[-2:] == [LIST_PORTS, ("networksetup", "-getairportpower", "en1")]
    assert all(timeout > 0 for timeout in runner.timeouts)


def test_wifi_on_older_macos_is_the_airport_port() -> None:
    runner = recorded(
        {
            LIST_PORTS: said(OLD_PORTS),
            ("networksetup", "-getairportpower", "en1"): said("AirPort Power (en1): Off\n"),
        }
    )
    assert macos.NetworksetupWifi(runner).read() is False


@pytest.mark.parametrize(("value", "word"), [(True, "on"), (False, "off")])
def test_wifi_write_builds_the_command(value: bool, word: str) -> None:
    setting = ("networksetup", "-setairportpower", "en1", word)
    runner = recorded({LIST_PORTS: said(PORTS), setting: said("")})
    macos.NetworksetupWifi(runner).write(value)
    assert runner.calls == [LIST_PORTS, setting]


def test_wifi_write_refused_with_exit_status_zero_is_a_failure() -> None:
    refusal = "en1 is not a Wi-Fi interface.\n** Error: Error obtaining wireless information.\n"
    runner = recorded(
        {LIST_PORTS: said(PORTS), ("networksetup", "-setairportpower", "en1", "on"): said(refusal)}
    )
    with pytest.raises(CommandFailed, match="is not a Wi-Fi interface"):
        macos.NetworksetupWifi(runner).write(True)


def test_wifi_detail_names_the_network_joined() -> None:
    network = ("networksetup", "-getairportnetwork", "en1")
    runner = recorded({LIST_PORTS: said(PORTS), network: said("Current Wi-Fi Network: Home 5G\n")})
    assert macos.NetworksetupWifi(runner).detail() == "connected to Home 5G"
    runner.answers[network] = said("You are not associated with an AirPort network.\n")
    assert macos.NetworksetupWifi(runner).detail() == ""


def test_wifi_unsupported_says_why() -> None:
    assert macos.NetworksetupWifi(recorded({}, "osascript")).unsupported() == (
        "networksetup is not installed"
    )
    wired = recorded({LIST_PORTS: said(WIRED_ONLY)})
    assert "no Wi-Fi hardware port found" in macos.NetworksetupWifi(wired).unsupported()


def test_wifi_garbage_and_failures_are_clear_errors() -> None:
    power = ("networksetup", "-getairportpower", "en1")
    runner = recorded({LIST_PORTS: said(PORTS), power: said("Wi-Fi Power: maybe\n")})
    with pytest.raises(SystemSettingError, match="networksetup printed something Hearth cannot"):
        macos.NetworksetupWifi(runner).read()
    runner.answers[power] = said("", 10, "** Error: The parameters were not valid.\n")
    with pytest.raises(CommandFailed, match=r"^networksetup failed: \*\* Error: The parameters"):
        macos.NetworksetupWifi(runner).read()


def test_volume_reads_and_writes_through_osascript() -> None:
    setting = ("osascript", "-e", "set volume output volume 40")
    runner = recorded({VOLUME: said("50\n"), setting: said("")})
    volume = macos.OsascriptVolume(runner)
    assert volume.unsupported() == ""
    assert volume.read() == 50
    volume.write(40)
    assert runner.calls == [VOLUME, VOLUME, setting]


def test_mute_reads_and_writes_through_osascript() -> None:
    unmute = ("osascript", "-e", "set volume output muted false")
    mute = ("osascript", "-e", "set volume output muted true")
    runner = recorded({MUTED: said("true\n"), mute: said(""), unmute: said("")})
    muting = macos.OsascriptMute(runner)
    assert muting.read() is True
    runner.answers[MUTED] = said("false\n")
    assert muting.read() is False
    muting.write(True)
    muting.write(False)
    assert runner.calls[-2:] == [mute, unmute]


def test_a_device_without_volume_control_is_unsupported() -> None:
    runner = recorded({VOLUME: said("missing value\n"), MUTED: said("missing value\n")})
    assert "no volume control" in macos.OsascriptVolume(runner).unsupported()
    assert "no volume control" in macos.OsascriptMute(runner).unsupported()
    with pytest.raises(SystemSettingError, match="no volume control"):
        macos.OsascriptVolume(runner).read()
    assert macos.OsascriptVolume(recorded({}, "networksetup")).unsupported() == (
        "osascript is not installed"
    )


def test_osascript_garbage_and_failures_are_clear_errors() -> None:
    runner = recorded({VOLUME: said("fifty\n"), MUTED: said("1\n")})
    with pytest.raises(SystemSettingError, match="osascript printed something Hearth cannot"):
        macos.OsascriptVolume(runner).read()
    with pytest.raises(SystemSettingError, match="osascript printed something Hearth cannot"):
        macos.OsascriptMute(runner).read()
    failure = "0:34: execution error: Can’t get volume settings. (-1728)\n"
    runner.answers[VOLUME] = said("", 1, failure)
    with pytest.raises(CommandFailed, match=r"^osascript failed: 0:34: execution error"):
        macos.OsascriptVolume(runner).read()


def test_brightness_reads_the_main_display() -> None:
    runner = recorded({LIST_DISPLAYS: said(DISPLAYS, stderr=EXTERNAL_FAILS)})
    brightness = macos.BrightnessTool(runner)
    assert brightness.unsupported() == ""
    assert brightness.read() == 75


def test_brightness_prefers_the_main_display_wherever_it_is_listed() -> None:
    listing = (
        "display 0: active, awake, online, built-in, ID 0x4280a80\n"
        "display 0: brightness 0.300000\n"
        "display 1: main, active, awake, online, external, ID 0x1e6c2c08\n"
        "display 1: brightness 0.812500\n"
    )
    assert macos.BrightnessTool(recorded({LIST_DISPLAYS: said(listing)})).read() == 81


def test_brightness_write_sets_the_display_it_reads() -> None:
    setting = ("brightness", "-d", "0", "0.40")
    runner = recorded({LIST_DISPLAYS: said(DISPLAYS), setting: said("")})
    macos.BrightnessTool(runner).write(40)
    assert runner.calls == [LIST_DISPLAYS, setting]


def test_brightness_refused_with_exit_status_zero_is_a_failure() -> None:
    refusal = "brightness: failed to set brightness of display 0x1\n"
    setting = ("brightness", "-d", "0", "1.00")
    runner = recorded({LIST_DISPLAYS: said(DISPLAYS), setting: said("", 0, refusal)})
    with pytest.raises(CommandFailed, match="failed to set brightness of display 0x1"):
        macos.BrightnessTool(runner).write(100)


def test_brightness_unsupported_says_why() -> None:
    missing = macos.BrightnessTool(recorded({}, "osascript")).unsupported()
    assert missing == "the brightness tool is not installed (brew install brightness)"
    external = "display 0: main, active, awake, online, external, ID 0x2\n"
    runner = recorded({LIST_DISPLAYS: said(external, stderr=EXTERNAL_FAILS)})
    assert "external monitors usually do not" in macos.BrightnessTool(runner).unsupported()


def test_brightness_garbage_and_failures_are_clear_errors() -> None:
    runner = recorded({LIST_DISPLAYS: said("display zero: very bright\n")})
    with pytest.raises(SystemSettingError, match="brightness printed something Hearth cannot"):
        macos.BrightnessTool(runner).read()
    usage = "usage: brightness [-m|-d display] [-v] <brightness>\n"
    runner.answers[LIST_DISPLAYS] = said("", 1, usage)
    with pytest.raises(CommandFailed, match=r"^brightness failed: usage: brightness"):
        macos.BrightnessTool(runner).read()


BAD_LEVELS = [
    ("40; rm -rf /", TypeError),
    (True, TypeError),
    (False, TypeError),
    (40.0, TypeError),
    (None, TypeError),
    (-1, ValueError),
    (101, ValueError),
]
BAD_SWITCHES = ["on", "true; rm -rf /", 1, 0, None]


@pytest.mark.parametrize(("value", "error"), BAD_LEVELS)
@pytest.mark.parametrize("control", [macos.OsascriptVolume, macos.BrightnessTool])
def test_a_level_that_is_not_a_whole_percent_runs_nothing(
    value: Any, error: type[Exception], control: type
) -> None:
    runner = recorded({LIST_DISPLAYS: said(DISPLAYS)})
    with pytest.raises(error):
        control(runner).write(value)
    assert runner.calls == []


@pytest.mark.parametrize("value", BAD_SWITCHES)
@pytest.mark.parametrize("control", [macos.OsascriptMute, macos.NetworksetupWifi])
def test_a_switch_that_is_not_a_bool_runs_nothing(value: Any, control: type) -> None:
    runner = recorded({LIST_PORTS: said(PORTS)})
    with pytest.raises(TypeError):
        control(runner).write(value)
    assert runner.calls == []
