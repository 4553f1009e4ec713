"""Wi-Fi through nmcli, on recorded output: NetworkManager cannot run on this machine.

The recordings follow NetworkManager's nmcli source (github.com/NetworkManager/NetworkManager):
- src/nmcli/general.c: `radio` with `-f WIFI` prints the switch as "enabled" or "disabled";
  `general` prints RUNNING as "running"; a refused radio change is reported as
  "Error: failed to set Wi-Fi radio: %s" with exit status 1 (NMC_RESULT_ERROR_UNKNOWN).
- src/nmcli/common.c call_cmd(): "Error: NetworkManager is not running." with exit status 8
  (NMC_RESULT_ERROR_NM_NOT_RUNNING) for every command that needs the daemon.
- src/nmcli/utils.c print_data(): terse (-t) fields are joined by ':', and a ':' or '\\' inside
  a value is escaped with '\\'; ACTIVE in `device wifi list` is "yes" or "no" (devices.c).
- NetworkManager's polkit refusal reads "Not authorized to control networking." (nm-manager.c).
nmcli writes "Error: ..." lines to stderr (g_printerr in nmcli.c).
"""

from __future__ import annotations

import pytest

from hearth.connectors.system.errors import CommandFailed
from hearth.connectors.system.linux_network import NmcliWifi, NotAuthorized, terse_fields
from tests.connectors.system.recorded import Answer, RecordedRunner, said

RUNNING = ("nmcli", "-t", "-f", "RUNNING", "general")
RADIO = ("nmcli", "-t", "-f", "WIFI", "radio")
LIST = ("nmcli", "-t", "-f", "ACTIVE,SSID", "device", "wifi", "list", "--rescan", "no")
NOT_RUNNING = said(stderr="Error: NetworkManager is not running.\n", returncode=8)


def wifi(answers: dict[tuple[str, ...], Answer]) -> tuple[NmcliWifi, RecordedRunner]:
    runner = RecordedRunner(answers, programs=["nmcli"])
    return NmcliWifi(runner), runner


def test_missing_nmcli_is_unsupported() -> None:
    control = NmcliWifi(RecordedRunner({}, programs=[]))
    assert control.unsupported() == "nmcli is not installed (NetworkManager)"


def test_a_stopped_networkmanager_is_unsupported() -> None:
    control, _ = wifi({RUNNING: NOT_RUNNING})
    assert control.unsupported() == "NetworkManager is not running"


def test_a_running_networkmanager_is_supported() -> None:
    control, runner = wifi({RUNNING: said("running\n")})
    assert control.unsupported() == ""
    assert runner.calls == [RUNNING]


def test_reads_the_radio_switch() -> None:
    control, _ = wifi({RADIO: said("enabled\n")})
    assert control.read() is True
    control, _ = wifi({RADIO: said("disabled\n")})
    assert control.read() is False


def test_switches_the_radio_with_fixed_arguments() -> None:
    """Guard: exactly `nmcli radio wifi on|off`, as a list, each run with a time limit."""
    on, off = ("nmcli", "radio", "wifi", "on"), ("nmcli", "radio", "wifi", "off")
    control, runner = wifi({on: said(), off: said()})
    control.write(False)
    control.write(True)
    assert runner.calls == [off, on]
    assert all(0 < timeout <= 30 for timeout in runner.timeouts)


@pytest.mark.parametrize("value", [1, 0, "on", None])
def test_writes_only_booleans(value: object) -> None:
    control, runner = wifi({})
    with pytest.raises(TypeError, match="True or False"):
        control.write(value)  # type: ignore[arg-type]
    assert runner.calls == []


def test_a_polkit_refusal_says_who_must_allow_it() -> None:
    refused = said(
        stderr="Error: failed to set Wi-Fi radio: Not authorized to control networking.\n",
        returncode=1,
    )
    control, _ = wifi({("nmcli", "radio", "wifi", "off"): refused})
    with pytest.raises(NotAuthorized) as raised:
        control.write(False)
    message = str(raised.value)
    assert message.startswith("NetworkManager refused: failed to set Wi-Fi radio: Not authorized")
    assert "org.freedesktop.NetworkManager.enable-disable-wifi" in message


def test_networkmanager_stopping_midway_is_a_clear_error() -> None:
    control, _ = wifi({RADIO: NOT_RUNNING, ("nmcli", "radio", "wifi", "on"): NOT_RUNNING})
    with pytest.raises(CommandFailed, match="NetworkManager is not running"):
        control.read()
    with pytest.raises(CommandFailed, match="NetworkManager is not running"):
        control.write(True)


def test_other_nmcli_errors_are_passed_on() -> None:
    failed = said(stderr="Error: Timeout 10 sec expired.\n", returncode=3)
    control, _ = wifi({RADIO: failed})
    with pytest.raises(CommandFailed, match=r"^nmcli failed: Timeout 10 sec expired\.$"):
        control.read()


@pytest.mark.parametrize("stdout", ["", "enabled:enabled\n", "on\n", "Enabled\n"])
def test_an_unexpected_radio_state_is_a_clear_error(stdout: str) -> None:
    control, _ = wifi({RADIO: said(stdout)})
    with pytest.raises(CommandFailed, match="unexpected Wi-Fi radio state"):
        control.read()


def test_detail_names_the_active_network_with_escapes_undone() -> None:
    listing = "no:Neighbours\nyes:Home\\:Net \\\\ 5G\nno:\nno:Cafe\n"
    control, runner = wifi({LIST: said(listing)})
    assert control.detail() == "Home:Net \\ 5G"
    assert runner.calls == [LIST]


def test_detail_is_empty_when_no_network_is_joined() -> None:
    control, _ = wifi({LIST: said("no:Neighbours\nno:Cafe\n")})
    assert control.detail() == ""
    control, _ = wifi({LIST: said("")})  # the radio is off: nothing is listed
    assert control.detail() == ""


def test_a_hidden_active_network_has_an_empty_name() -> None:
    control, _ = wifi({LIST: said("yes:\n")})
    assert control.detail() == ""


def test_a_garbled_wifi_list_is_a_clear_error() -> None:
    control, _ = wifi({LIST: said("yes:Home:Net\n")})
    with pytest.raises(CommandFailed, match="unexpected Wi-Fi list line"):
        control.detail()


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("yes:Home", ["yes", "Home"]),
        ("yes:a\\:b", ["yes", "a:b"]),
        ("no:back\\\\slash", ["no", "back\\slash"]),
        ("no:ends\\\\", ["no", "ends\\"]),
        ("::", ["", "", ""]),
    ],
)
def test_terse_fields_undo_nmcli_escaping(line: str, fields: list[str]) -> None:
    assert terse_fields(line) == fields
