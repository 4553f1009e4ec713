"""The Windows backends against recordings of netsh and PowerShell output; pycaw's pure parts.

Sources of the recorded formats:
- `netsh wlan show interfaces`: learn.microsoft.com/windows-server/networking/technologies/netsh/
  netsh-wlan (show interfaces), in the "    Label   : value" layout real machines print; a
  radio switched off adds "Radio status : Hardware On" with "Software Off" on the next line.
  Without the WLAN service: "The Wireless AutoConfig Service (wlansvc) is not running.", exit 1.
- `netsh interface show interface [name=]`: learn.microsoft.com/windows-server/administration/
  windows-commands/netsh-interface; the table "Admin State  State  Type  Interface Name" and the
  per-interface "Administrative state: Enabled" block as printed by Windows 7 to 11 (e.g.
  blog.csdn.net/weixin_33943347/article/details/93958539); without rights, netsh prints "The
  requested operation requires elevation (Run as administrator)." and exits 1.
- PowerShell: `CurrentBrightness` prints one number per display; a monitor without WMI
  brightness makes Get-CimInstance fail with "Not supported" (WBEM_E_NOT_SUPPORTED, 0x8004100C,
  learn.microsoft.com/windows/win32/wmisdk/wmi-error-constants) in PowerShell's error layout.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from hearth.connectors.system import windows
from hearth.connectors.system.controls import SETTINGS
from hearth.connectors.system.errors import CommandFailed, SystemSettingError
from tests.connectors.system.recorded import Answer, RecordedRunner, said

WLAN = """
There is 1 interface on the system:

    Name                   : Wi-Fi
    Description            : Intel(R) Wi-Fi 6 AX201 160MHz
    GUID                   : 7c4a8d09-ca37-4b2f-9f1e-2b1c3d4e5f60
    Physical address       : a4:c3:f0:11:22:33
    Interface type         : Primary
    State                  : connected
    SSID                   : Home: 5G
    BSSID                  : 50:c7:bf:11:22:33
    Network type           : Infrastructure
    Radio type             : 802.11ax
    Authentication         : WPA2-Personal
    Cipher                 : CCMP
    Connection mode        : Auto Connect
    Band                   : 5 GHz
    Channel                : 36
    Receive rate (Mbps)    : 1201
    Transmit rate (Mbps)   : 1201
    Signal                 : 92%
    Profile                : Home: 5G

    Hosted network status  : Not available
"""
RADIO_OFF = """
There is 1 interface on the system:

    Name                   : Wi-Fi 2
    Description            : Intel(R) Wi-Fi 6 AX201 160MHz
    GUID                   : 7c4a8d09-ca37-4b2f-9f1e-2b1c3d4e5f60
    Physical address       : a4:c3:f0:11:22:33
    Interface type         : Primary
    State                  : disconnected
    Radio status           : Hardware On
                             Software Off

    Hosted network status  : Not available
"""
NO_SERVICE = "The Wireless AutoConfig Service (wlansvc) is not running.\n"
TABLE = """
Admin State    State          Type             Interface Name
-------------------------------------------------------------------------
Enabled        Connected      Dedicated        Ethernet
Disabled       Disconnected   Dedicated        Wi-Fi
"""
WIRED_TABLE = """
Admin State    State          Type             Interface Name
-------------------------------------------------------------------------
Enabled        Connected      Dedicated        Ethernet
"""
ENABLED = """
Wi-Fi
   Type:                 Dedicated
   Administrative state: Enabled
   Connect state:        Connected

"""
ELEVATION = "The requested operation requires elevation (Run as administrator).\n\n"
LIST_WLAN = ("netsh", "wlan", "show", "interfaces")
LIST_ALL = ("netsh", "interface", "show", "interface")
SHOW_WIFI = ("netsh", "interface", "show", "interface", "name=Wi-Fi")
POWERSHELL = ("powershell", "-NoProfile", "-NonInteractive", "-Command")
READ_BRIGHTNESS = (
    *POWERSHELL,
    "(Get-CimInstance -Namespace root/wmi -ClassName WmiMonitorBrightness).CurrentBrightness",
)
NOT_SUPPORTED = """Get-CimInstance : Not supported
At line:1 char:2
+ (Get-CimInstance -Namespace root/wmi -ClassName WmiMonitorBrightness) ...
+  ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    + CategoryInfo          : NotImplemented: (root/wmi:WmiMonitorBrightness:String) [Get-CimI
   nstance], CimException
    + FullyQualifiedErrorId : HRESULT 0x8004100c,Microsoft.Management.Infrastructure.CimCmdlet
   s.GetCimInstanceCommand
"""


def set_brightness(level: str) -> tuple[str, ...]:
    return (
        *POWERSHELL,
        "Invoke-CimMethod -InputObject (Get-CimInstance -Namespace root/wmi -ClassName "
        "WmiMonitorBrightnessMethods) -MethodName WmiSetBrightness "
        f"-Arguments @{{Timeout=0; Brightness={level}}}",
    )


def recorded(answers: dict[tuple[str, ...], Answer], *programs: str) -> RecordedRunner:
    return RecordedRunner(answers, programs or ("netsh", "powershell"))


def test_every_setting_has_a_control_or_a_reason() -> None:
    offered = {control.setting for control in windows.controls(recorded({}))}
    assert offered | set(windows.NOT_OFFERED) == set(SETTINGS)
    assert not offered & set(windows.NOT_OFFERED)
    assert "Focus assist" in windows.NOT_OFFERED["do_not_disturb"]


def test_wifi_reads_the_admin_state_of_the_wlan_interface() -> None:
    runner = recorded({LIST_WLAN: said(WLAN), SHOW_WIFI: said(ENABLED)})
    wifi = windows.NetshWifi(runner)
    assert wifi.unsupported() == ""
    assert wifi.read() is True
    runner.answers[SHOW_WIFI] = said(ENABLED.replace("state: Enabled", "state: Disabled"))
    assert wifi.read() is False
    assert runner.calls == [LIST_WLAN, SHOW_WIFI, SHOW_WIFI]


@pytest.mark.parametrize(("value", "admin"), [(True, "admin=enabled"), (False, "admin=disabled")])
def test_wifi_write_passes_the_name_as_one_argument(value: bool, admin: str) -> None:
    setting = ("netsh", "interface", "set", "interface", "name=Wi-Fi 2", admin)
    runner = recorded({LIST_WLAN: said(RADIO_OFF), setting: said("")})
    windows.NetshWifi(runner).write(value)
    assert runner.calls == [LIST_WLAN, setting]


def test_wifi_write_without_administrator_rights_says_so() -> None:
    setting = ("netsh", "interface", "set", "interface", "name=Wi-Fi", "admin=disabled")
    runner = recorded({LIST_WLAN: said(WLAN), setting: said(ELEVATION, 1)})
    with pytest.raises(CommandFailed, match="needs administrator rights"):
        windows.NetshWifi(runner).write(False)


def test_wifi_switched_off_is_found_among_all_interfaces() -> None:
    enable = ("netsh", "interface", "set", "interface", "name=Wi-Fi", "admin=enabled")
    disabled = ENABLED.replace("state: Enabled", "state: Disabled")
    runner = recorded(
        {
            LIST_WLAN: said("There is no wireless interface on the system.\n"),
            LIST_ALL: said(TABLE),
            SHOW_WIFI: said(disabled),
            enable: said(""),
        }
    )
    wifi = windows.NetshWifi(runner)
    assert wifi.unsupported() == ""
    assert wifi.read() is False
    wifi.write(True)
    assert runner.calls == [LIST_WLAN, LIST_ALL, SHOW_WIFI, enable]


def test_wifi_unsupported_says_why() -> None:
    assert windows.NetshWifi(recorded({}, "powershell")).unsupported() == (
        "netsh is not installed (Windows only)"
    )
    runner = recorded({LIST_WLAN: said(NO_SERVICE, 1), LIST_ALL: said(WIRED_TABLE)})
    assert windows.NetshWifi(runner).unsupported() == (
        "no Wi-Fi interface found: netsh says "
        "'The Wireless AutoConfig Service (wlansvc) is not running.'"
    )


def test_wifi_detail_names_the_network_or_the_radio() -> None:
    runner = recorded({LIST_WLAN: said(WLAN)})
    assert windows.NetshWifi(runner).detail() == "connected to Home: 5G"
    runner.answers[LIST_WLAN] = said(RADIO_OFF)
    assert windows.NetshWifi(runner).detail() == "the Wi-Fi radio is off (Hardware On Software Off)"
    runner.answers[LIST_WLAN] = said(RADIO_OFF.replace("Software Off", "Software On"))
    assert windows.NetshWifi(runner).detail() == "not connected"


def test_wifi_garbage_and_failures_are_clear_errors() -> None:
    runner = recorded({LIST_WLAN: said(WLAN), SHOW_WIFI: said("Wi-Fi\n   Type: Dedicated\n")})
    with pytest.raises(SystemSettingError, match="netsh printed something Hearth cannot read"):
        windows.NetshWifi(runner).read()
    gone = "An interface with this name is not registered with the router.\n"
    runner.answers[SHOW_WIFI] = said(gone, 1)
    with pytest.raises(CommandFailed, match=r"^netsh failed: An interface with this name is not"):
        windows.NetshWifi(runner).read()


@pytest.mark.skipif(sys.platform == "win32", reason="pycaw can be installed on Windows")
def test_pycaw_off_windows_is_unsupported_and_says_so() -> None:
    for control in (windows.PycawVolume(), windows.PycawMute()):
        assert control.unsupported() == "pycaw is not installed (Windows only)"
        with pytest.raises(SystemSettingError, match="pycaw is not installed"):
            control.read()


@pytest.mark.parametrize(
    ("scalar", "percent"), [(0.0, 0), (1.0, 100), (0.4, 40), (0.39999998, 40), (0.125, 12)]
)
def test_core_audio_scalars_are_whole_percents(scalar: float, percent: int) -> None:
    assert windows.percent_from_scalar(scalar) == percent


@pytest.mark.parametrize("scalar", [-0.01, 1.5, float("nan"), float("inf")])
def test_a_scalar_out_of_range_is_a_clear_error(scalar: float) -> None:
    with pytest.raises(SystemSettingError, match="volume Hearth cannot read"):
        windows.percent_from_scalar(scalar)


def test_percents_are_core_audio_scalars() -> None:
    assert [windows.scalar_from_percent(p) for p in (0, 40, 100)] == [0.0, 0.4, 1.0]
    assert all(windows.percent_from_scalar(windows.scalar_from_percent(p)) == p for p in range(101))


def test_brightness_reads_the_first_display_through_wmi() -> None:
    runner = recorded({READ_BRIGHTNESS: said("75\n40\n")})
    brightness = windows.WmiBrightness(runner)
    assert brightness.unsupported() == ""
    assert brightness.read() == 75
    assert runner.timeouts == [15.0, 15.0]


def test_brightness_write_builds_the_command() -> None:
    runner = recorded({set_brightness("40"): said("\nReturnValue PSComputerName\n")})
    windows.WmiBrightness(runner).write(40)
    assert runner.calls == [set_brightness("40")]


def test_brightness_unsupported_says_why() -> None:
    missing = windows.WmiBrightness(recorded({}, "netsh")).unsupported()
    assert missing == "PowerShell is not installed (Windows only)"
    runner = recorded({READ_BRIGHTNESS: said("", 1, NOT_SUPPORTED)})
    assert "external monitors usually do not" in windows.WmiBrightness(runner).unsupported()
    runner.answers[READ_BRIGHTNESS] = said("")
    assert "external monitors usually do not" in windows.WmiBrightness(runner).unsupported()


def test_brightness_garbage_and_failures_are_clear_errors() -> None:
    runner = recorded({READ_BRIGHTNESS: said("bright\n")})
    with pytest.raises(SystemSettingError, match="PowerShell printed something Hearth cannot"):
        windows.WmiBrightness(runner).read()
    denied = "Get-CimInstance : Access denied \nAt line:1 char:2\n"
    runner.answers[READ_BRIGHTNESS] = said("", 1, denied)
    with pytest.raises(CommandFailed, match=r"^powershell failed: Get-CimInstance : Access denied"):
        windows.WmiBrightness(runner).read()


BAD_LEVELS = [
    ("40; rm -rf /", TypeError),
    ("40}; Remove-Item C:\\ -Recurse; @{", TypeError),
    (True, TypeError),
    (40.0, TypeError),
    (None, TypeError),
    (-1, ValueError),
    (101, ValueError),
]


@pytest.mark.parametrize(("value", "error"), BAD_LEVELS)
def test_a_brightness_that_is_not_a_whole_percent_runs_nothing(
    value: Any, error: type[Exception]
) -> None:
    runner = recorded({})
    with pytest.raises(error):
        windows.WmiBrightness(runner).write(value)
    assert runner.calls == []


@pytest.mark.parametrize(("value", "error"), BAD_LEVELS)
def test_a_volume_that_is_not_a_whole_percent_is_refused_first(
    value: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        windows.PycawVolume().write(value)


@pytest.mark.parametrize("value", ["on", "enabled name=Ethernet", 1, 0, None])
def test_a_switch_that_is_not_a_bool_runs_nothing(value: Any) -> None:
    runner = recorded({LIST_WLAN: said(WLAN)})
    with pytest.raises(TypeError):
        windows.NetshWifi(runner).write(value)
    assert runner.calls == []
    with pytest.raises(TypeError):
        windows.PycawMute().write(value)
