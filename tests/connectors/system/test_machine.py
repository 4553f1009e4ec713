"""Choosing a backend per setting, saying why none works, and changing a setting provably:
read it, record the old value, write, read it back; undo puts back only what Hearth set."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth import UndoFailed
from hearth.connectors.system.changing import change, revert
from hearth.connectors.system.errors import NotSupported, NotVerified
from hearth.connectors.system.linux_backlight import BrightnessctlBrightness, SysfsBrightness
from hearth.connectors.system.linux_network import NmcliWifi
from hearth.connectors.system.machine import PROBE_KEPT_S, Machine
from hearth.connectors.system.platforms import this_machine
from hearth.connectors.system.results import Change
from tests.connectors.system.desktop_fixtures import make_backlight
from tests.connectors.system.recorded import RecordedRunner

NOTHING = RecordedRunner({}, programs=[])


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_first_backend_that_works_here_is_used(backlight_dir: Path) -> None:
    machine = Machine([BrightnessctlBrightness(NOTHING), SysfsBrightness(backlight_dir)])
    assert machine.control("brightness").backend == "sysfs"
    assert machine.support("brightness").backend == "sysfs"


def test_no_working_backend_says_every_reason(tmp_path: Path) -> None:
    machine = Machine(
        [NmcliWifi(NOTHING), BrightnessctlBrightness(NOTHING), SysfsBrightness(tmp_path)],
        not_offered={"do_not_disturb": "this desktop has no command for it"},
    )
    with pytest.raises(NotSupported) as caught:
        machine.control("brightness")
    said = str(caught.value)
    assert said.startswith("Brightness is not supported on this machine: ")
    assert "brightnessctl is not installed" in said and "no backlight device" in said
    assert "nmcli is not installed" in str(machine.support("wifi").reason)
    assert machine.support("do_not_disturb").reason == "this desktop has no command for it"
    assert machine.support("volume").reason == "Hearth has no backend for it on this system"


def test_probes_are_kept_briefly_then_asked_again(tmp_path: Path) -> None:
    clock = Clock()
    machine = Machine([SysfsBrightness(tmp_path / "backlight")], clock=clock)
    assert machine.support("brightness").backend is None
    make_backlight(tmp_path / "backlight", "acpi_video0", 5, 10)
    assert machine.support("brightness").backend is None
    clock.now += PROBE_KEPT_S
    assert machine.support("brightness").backend == "sysfs"


def test_a_change_is_read_back_and_keeps_the_old_value(backlight_dir: Path) -> None:
    control = SysfsBrightness(backlight_dir)
    done = change(control, 30)
    assert done == Change(setting="brightness", before=50, after=30)
    assert (backlight_dir / "intel_backlight" / "brightness").read_text().strip() == "72000"
    assert revert(control, done) == "the brightness is 50% again"
    assert control.read() == 50


def test_a_value_already_set_is_not_written(backlight_dir: Path) -> None:
    brightness = backlight_dir / "intel_backlight" / "brightness"
    brightness.unlink()
    brightness.write_text("120000\n")
    brightness.chmod(0o444)  # root writes anyway, so the test below checks the file's content
    done = change(SysfsBrightness(backlight_dir), 50)
    assert (done.before, done.after) == (50, 50)
    assert brightness.read_text() == "120000\n"


def test_a_read_back_that_differs_is_reported_not_retried(tmp_path: Path) -> None:
    device = make_backlight(tmp_path / "backlight", "panel", 5, 10)
    # A driver that clamps: `actual_brightness` stays at 5 whatever is written.
    (device / "actual_brightness").unlink()
    (device / "actual_brightness").write_text("5\n")
    with pytest.raises(NotVerified, match="set to 90% with sysfs, but reads 50% now"):
        change(SysfsBrightness(tmp_path / "backlight"), 90)


def test_undo_leaves_a_setting_someone_changed_since(backlight_dir: Path) -> None:
    control = SysfsBrightness(backlight_dir)
    done = change(control, 30)
    (backlight_dir / "intel_backlight" / "brightness").write_text("240000\n")
    with pytest.raises(UndoFailed, match="is 100% now, not the 30% Hearth set"):
        revert(control, done)
    assert control.read() == 100


def test_an_undo_of_a_change_that_never_happened_says_so(backlight_dir: Path) -> None:
    # The journal records the old value before the write; a crash may come between the two.
    never = Change(setting="brightness", before=50, after=10)
    assert revert(SysfsBrightness(backlight_dir), never) == "the brightness is already 50%"


@pytest.mark.parametrize(
    ("platform", "backends"),
    [
        (
            "linux",
            ["nmcli", "wpctl", "wpctl", "pactl", "pactl", "brightnessctl", "sysfs", "gsettings"],
        ),
        ("darwin", ["networksetup", "osascript", "osascript", "brightness"]),
        ("win32", ["netsh", "pycaw", "pycaw", "wmi"]),
        ("freebsd14", []),
    ],
)
def test_each_platform_gets_its_own_backends(platform: str, backends: list[str]) -> None:
    assert [control.backend for control in this_machine(NOTHING, platform).controls] == backends


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32", "freebsd14"])
def test_every_platform_has_a_machine_that_names_each_setting(platform: str) -> None:
    machine = this_machine(NOTHING, platform)
    for support in machine.supports():
        assert support.backend is None and support.reason
