"""The battery: psutil for real (here and on a sysfs-like tree), upower on recorded output."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import psutil
import pytest

from hearth.connectors.system.battery import PsutilBattery, UpowerBattery, parse_upower_device
from hearth.connectors.system.controls import Battery
from hearth.connectors.system.errors import CommandFailed
from tests.connectors.system.recorded import Answer, RecordedRunner, said

linux_only = pytest.mark.skipif(not psutil.LINUX, reason="reads Linux's power_supply class")


def pslinux() -> Any:
    """psutil's Linux implementation, which imports only on Linux."""
    return importlib.import_module("psutil._pslinux")


# --- psutil ---------------------------------------------------------------------------------


@linux_only
def test_psutil_reads_no_battery_on_this_machine() -> None:
    """A real call: this machine (a server) has no battery, so there is nothing to read."""
    if any(
        name.startswith("BAT") or "battery" in name.lower()
        for name in (p.name for p in Path(pslinux().POWER_SUPPLY_PATH).glob("*"))
    ):
        pytest.skip("this machine has a battery; the answer checked is for one without")
    reader = PsutilBattery()
    assert reader.unsupported() == ""
    assert reader.read() is None


def power_supply(root: Path, battery: dict[str, str], ac_online: str | None) -> Path:
    """A /sys/class/power_supply-like tree with BAT0 and, when given, the AC adapter."""
    bat = root / "BAT0"
    bat.mkdir(parents=True)
    for name, text in battery.items():
        (bat / name).write_text(f"{text}\n")
    if ac_online is not None:
        (root / "AC").mkdir()
        (root / "AC" / "online").write_text(f"{ac_online}\n")
    return root


@pytest.fixture
def fake_power_supply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """psutil's own Linux reader pointed at a tmp tree: only its folder constant changes."""
    root = tmp_path / "power_supply"
    monkeypatch.setattr(pslinux(), "POWER_SUPPLY_PATH", str(root))
    return root


# Energies in µWh and power in µW, as the kernel's power_supply class reports them.
DISCHARGING = {
    "energy_now": "30000000",
    "energy_full": "60000000",
    "power_now": "10000000",
    "status": "Discharging",
    "capacity": "50",
}


@linux_only
def test_psutil_reads_a_discharging_battery(fake_power_supply: Path) -> None:
    power_supply(fake_power_supply, DISCHARGING, ac_online="0")
    assert PsutilBattery().read() == Battery(percent=50, plugged=False, minutes_left=180)


@linux_only
def test_psutil_on_mains_power_has_no_time_left(fake_power_supply: Path) -> None:
    power_supply(fake_power_supply, {**DISCHARGING, "status": "Charging"}, ac_online="1")
    assert PsutilBattery().read() == Battery(percent=50, plugged=True, minutes_left=None)


@linux_only
def test_psutil_with_unknown_time_left(fake_power_supply: Path) -> None:
    power_supply(fake_power_supply, {"capacity": "87", "status": "Unknown"}, ac_online=None)
    assert PsutilBattery().read() == Battery(percent=87, plugged=False, minutes_left=None)


@linux_only
def test_psutil_without_a_battery_folder_reads_none(fake_power_supply: Path) -> None:
    (fake_power_supply / "AC").mkdir(parents=True)
    (fake_power_supply / "AC" / "online").write_text("1\n")
    assert PsutilBattery().read() is None


# --- upower ---------------------------------------------------------------------------------
# Recorded in the format of UPower's up_device_to_text() (libupower-glib/up-device.c,
# gitlab.freedesktop.org/upower/upower): "  name:   value" lines, "percentage: %g%%", "state"
# from up_device_state_to_string(), times from up_device_to_text_time_to_string() as
# "%.0f seconds", "%.1f minutes", "%.1f hours" or "%.1f days". `upower -e` (tools/up-tool.c)
# prints one object path a line, the DisplayDevice last.

DEVICES = "/org/freedesktop/UPower/devices/"
LIST = ("upower", "-e")
BAT0 = DEVICES + "battery_BAT0"


def describe(state: str, percent: str, time_line: str = "") -> str:
    return (
        "  native-path:          BAT0\n"
        "  vendor:               SMP\n"
        "  model:                5B10W13930\n"
        "  power supply:         yes\n"
        "  updated:              Tue 12 Mar 2024 10:15:42 CET (12 seconds ago)\n"
        "  has history:          yes\n"
        "  has statistics:       yes\n"
        "  battery\n"
        "    present:             yes\n"
        "    rechargeable:        yes\n"
        f"    state:               {state}\n"
        "    energy:              40.6 Wh\n"
        "    energy-empty:        0 Wh\n"
        "    energy-full:         46.67 Wh\n"
        "    energy-full-design:  51 Wh\n"
        "    energy-rate:         12.689 W\n"
        "    voltage:             12.46 V\n"
        f"{time_line}"
        f"    percentage:          {percent}\n"
        "    capacity:            91.5098%\n"
        "    technology:          lithium-polymer\n"
        "  History (charge):\n"
        "    1710234942\t87.000\tdischarging\n"
    )


def upower(listing: str, described: str | None = None) -> tuple[UpowerBattery, RecordedRunner]:
    answers: dict[tuple[str, ...], Answer] = {LIST: said(listing)}
    if described is not None:
        answers[("upower", "-i", BAT0)] = said(described)
    runner = RecordedRunner(answers, programs=["upower"])
    return UpowerBattery(runner), runner


LAPTOP = f"{DEVICES}line_power_AC\n{BAT0}\n{DEVICES}DisplayDevice\n"


def test_upower_reads_a_discharging_battery() -> None:
    text = describe("discharging", "87%", "    time to empty:       3.2 hours\n")
    reader, runner = upower(LAPTOP, text)
    assert reader.unsupported() == ""
    assert reader.read() == Battery(percent=87, plugged=False, minutes_left=192)
    assert runner.calls == [LIST, LIST, ("upower", "-i", BAT0)]


def test_upower_reads_a_charging_battery_without_time_left() -> None:
    text = describe("charging", "87.5%", "    time to full:        45.0 minutes\n")
    reader, _ = upower(LAPTOP, text)
    assert reader.read() == Battery(percent=88, plugged=True, minutes_left=None)


@pytest.mark.parametrize(
    ("state", "plugged"),
    [("fully-charged", True), ("pending-charge", True), ("empty", False), ("unknown", True)],
)
def test_upower_states_say_whether_mains_power_is_connected(state: str, plugged: bool) -> None:
    assert parse_upower_device(describe(state, "100%")).plugged is plugged


@pytest.mark.parametrize(
    ("left", "minutes"),
    [("45.0 minutes", 45), ("3.2 hours", 192), ("1.5 days", 2160), ("50 seconds", 1)],
)
def test_upower_times_left_in_every_unit(left: str, minutes: int) -> None:
    text = describe("discharging", "20%", f"    time to empty:       {left}\n")
    assert parse_upower_device(text).minutes_left == minutes


def test_upower_on_a_desktop_reads_none() -> None:
    reader, runner = upower(f"{DEVICES}line_power_AC\n{DEVICES}DisplayDevice\n")
    assert reader.read() is None
    assert runner.calls == [LIST]


def test_upower_prefers_the_laptop_battery_over_a_mouse() -> None:
    listing = f"{DEVICES}battery_hidpp_battery_0\n{BAT0}\n{DEVICES}DisplayDevice\n"
    reader, runner = upower(listing, describe("discharging", "64%"))
    assert reader.read() == Battery(percent=64, plugged=False, minutes_left=None)
    assert runner.calls[-1] == ("upower", "-i", BAT0)


def test_missing_upower_is_unsupported() -> None:
    assert UpowerBattery(RecordedRunner({}, programs=[])).unsupported() == "upower is not installed"


@pytest.mark.parametrize(
    "text",
    [
        "",
        describe("discharging", "lots"),
        describe("discharging", "87%").replace("state:", "mood:"),
        describe("discharging", "87%", "    time to empty:       soon\n"),
    ],
)
def test_upower_garbage_is_a_clear_error(text: str) -> None:
    reader, _ = upower(LAPTOP, text)
    with pytest.raises(CommandFailed, match="upower gave"):
        reader.read()
