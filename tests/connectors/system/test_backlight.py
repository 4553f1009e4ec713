"""Brightness: SysfsBrightness on a real sysfs-like tree, brightnessctl for real and recorded."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.errors import CommandFailed, SystemSettingError
from hearth.connectors.system.linux_backlight import BrightnessctlBrightness, SysfsBrightness
from tests.conftest import require
from tests.connectors.system.desktop_fixtures import make_backlight
from tests.connectors.system.recorded import RecordedRunner, said

INFO = ("brightnessctl", "-m", "-c", "backlight", "info")


# --- sysfs ---------------------------------------------------------------------------------


def test_sysfs_reads_writes_and_reads_back(backlight_dir: Path) -> None:
    control = SysfsBrightness(backlight_dir)
    assert control.unsupported() == ""
    assert control.read() == 50
    control.write(40)
    assert (backlight_dir / "intel_backlight" / "brightness").read_text() == "96000"
    assert control.read() == 40
    control.write(100)
    assert control.read() == 100
    control.write(0)
    assert control.read() == 0
    assert control.tolerance() == 1


def test_sysfs_reads_actual_brightness_over_the_requested_one(tmp_path: Path) -> None:
    device = make_backlight(tmp_path, "acpi_video0", 10, 10)
    (device / "actual_brightness").unlink()
    (device / "actual_brightness").write_text("5\n")
    assert SysfsBrightness(tmp_path).read() == 50


def test_sysfs_falls_back_to_brightness_without_actual_brightness(tmp_path: Path) -> None:
    device = make_backlight(tmp_path, "acpi_video0", 3, 4)
    (device / "actual_brightness").unlink()
    assert SysfsBrightness(tmp_path).read() == 75


def test_a_backlight_with_few_steps_still_verifies(tmp_path: Path) -> None:
    make_backlight(tmp_path, "acpi_video0", 7, 7)
    control = SysfsBrightness(tmp_path)
    assert control.tolerance() == 15  # 100 / 7, rounded up
    control.write(40)  # 2.8 steps: written as 3, read back as 43
    assert (tmp_path / "acpi_video0" / "brightness").read_text() == "3"
    assert abs(control.read() - 40) <= control.tolerance()
    for percent in range(101):
        control.write(percent)
        assert abs(control.read() - percent) <= control.tolerance(), percent


def test_firmware_and_platform_devices_are_preferred_over_raw(tmp_path: Path) -> None:
    make_backlight(tmp_path, "amdgpu_bl0", 10, 100, kind="raw")
    make_backlight(tmp_path, "zz_vendor", 60, 100, kind="platform")
    control = SysfsBrightness(tmp_path)
    assert control.device() == tmp_path / "zz_vendor"
    make_backlight(tmp_path, "zz_acpi", 80, 100, kind="firmware")
    assert control.read() == 80


def test_without_type_files_the_first_device_by_name_is_used(tmp_path: Path) -> None:
    make_backlight(tmp_path, "b_second", 20, 100, kind=None)
    make_backlight(tmp_path, "a_first", 70, 100, kind=None)
    assert SysfsBrightness(tmp_path).read() == 70


@pytest.mark.parametrize("garbage", ["", "bright\n", "-5\n", "1.5\n", "\xff\xfe"])
def test_garbage_in_a_sysfs_file_is_a_clear_error(tmp_path: Path, garbage: str) -> None:
    device = make_backlight(tmp_path, "acpi_video0", 5, 10)
    (device / "max_brightness").write_bytes(garbage.encode("latin-1"))
    control = SysfsBrightness(tmp_path)
    with pytest.raises(SystemSettingError, match="max_brightness"):
        control.read()
    with pytest.raises(SystemSettingError, match="max_brightness"):
        control.write(50)
    assert control.tolerance() == 1


def test_a_zero_maximum_is_a_clear_error(tmp_path: Path) -> None:
    make_backlight(tmp_path, "acpi_video0", 0, 0)
    with pytest.raises(SystemSettingError, match="not a level"):
        SysfsBrightness(tmp_path).read()


def test_an_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    device = make_backlight(tmp_path, "acpi_video0", 5, 10)
    # A folder where the file should be fails to read as root too, unlike chmod 000.
    (device / "max_brightness").unlink()
    (device / "max_brightness").mkdir()
    with pytest.raises(SystemSettingError, match=r"could not read .*max_brightness"):
        SysfsBrightness(tmp_path).read()


def test_no_backlight_device_is_unsupported_with_a_reason(tmp_path: Path) -> None:
    empty = tmp_path / "backlight"
    empty.mkdir()
    for root in (empty, tmp_path / "missing"):
        control = SysfsBrightness(root)
        assert control.unsupported() == f"there is no backlight device in {root}"
        with pytest.raises(SystemSettingError, match="no backlight device"):
            control.read()


@pytest.fixture
def read_only_brightness(backlight_dir: Path) -> Iterator[Path]:
    """intel_backlight's `brightness` made unwritable, also for root (who ignores modes)."""
    target = backlight_dir / "intel_backlight" / "brightness"
    if os.geteuid() != 0:
        target.chmod(0o444)
        yield target
        target.chmod(0o644)
        return
    # Root writes through mode bits, but not through the immutable attribute.
    if shutil.which("chattr") is None:
        require("chattr (e2fsprogs), to make a file read-only for root")
    made = subprocess.run(["chattr", "+i", str(target)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"this filesystem has no immutable attribute: {made.stderr.decode()}")
    try:
        yield target
    finally:
        subprocess.run(["chattr", "-i", str(target)], check=True)


def test_a_read_only_brightness_file_says_it_needs_write_access(
    backlight_dir: Path, read_only_brightness: Path
) -> None:
    control = SysfsBrightness(backlight_dir)
    assert "no write access" in control.unsupported()
    assert "video group" in control.unsupported()
    with pytest.raises(SystemSettingError, match="needs write access") as raised:
        control.write(30)
    assert "brightnessctl" in str(raised.value)
    assert "video group" in str(raised.value)
    assert read_only_brightness.read_text() == "120000\n"
    assert control.read() == 50


@pytest.mark.parametrize("value", [-1, 101, True, 50.0, "50"])
def test_only_whole_percents_are_written(backlight_dir: Path, value: object) -> None:
    control = SysfsBrightness(backlight_dir)
    with pytest.raises((TypeError, ValueError), match=r"whole percent|from 0 to 100"):
        control.write(value)  # type: ignore[arg-type]
    assert control.read() == 50


# --- brightnessctl -------------------------------------------------------------------------


def test_brightnessctl_for_real_finds_no_backlight_here() -> None:
    """This machine has no backlight: brightnessctl 0.5 exits 1 saying so on stderr."""
    runner = CommandRunner()
    if runner.which("brightnessctl") is None:
        require("brightnessctl is not installed")
    if any(Path("/sys/class/backlight").glob("*")):
        pytest.skip("this machine has a backlight; the answer checked is for one without")
    reason = BrightnessctlBrightness(runner).unsupported()
    assert reason == (
        "brightnessctl found no backlight device (Failed to read any devices of class 'backlight'.)"
    )
    with pytest.raises(CommandFailed, match="Failed to read any devices of class 'backlight'"):
        BrightnessctlBrightness(runner).read()


# Recorded answers follow brightnessctl.c (github.com/Hummer12007/brightnessctl): print_device()
# writes "%s,%s,%d,%d%%,%d\n" (device, class, current, percent, max) with -m, and fail() /
# perror() write the errors below to stderr with exit status 1.
def test_brightnessctl_reads_and_sets_a_percent() -> None:
    runner = RecordedRunner(
        {
            INFO: said("intel_backlight,backlight,120000,50%,240000\n"),
            (*INFO[:4], "set", "40%"): said("intel_backlight,backlight,96000,40%,240000\n"),
        },
        programs=["brightnessctl"],
    )
    control = BrightnessctlBrightness(runner)
    assert control.unsupported() == ""
    assert control.read() == 50
    control.write(40)
    assert runner.calls == [INFO, INFO, ("brightnessctl", "-m", "-c", "backlight", "set", "40%")]
    assert all(timeout > 0 for timeout in runner.timeouts)


def test_brightnessctl_tolerance_follows_the_steps_read() -> None:
    runner = RecordedRunner({INFO: said("acpi_video0,backlight,3,42%,7\n")}, ["brightnessctl"])
    control = BrightnessctlBrightness(runner)
    assert control.read() == 43
    assert control.tolerance() == 15


def test_brightnessctl_missing_is_unsupported() -> None:
    control = BrightnessctlBrightness(RecordedRunner({}, programs=[]))
    assert control.unsupported() == "brightnessctl is not installed"


@pytest.mark.parametrize(
    "stdout",
    ["", "intel_backlight,backlight\n", "a,backlight,x,50%,100\n", "a,backlight,5,5%,0\n"],
)
def test_brightnessctl_garbage_is_a_clear_error(stdout: str) -> None:
    control = BrightnessctlBrightness(RecordedRunner({INFO: said(stdout)}, ["brightnessctl"]))
    with pytest.raises(CommandFailed, match="brightnessctl gave unexpected output"):
        control.read()


def test_brightnessctl_without_write_access_says_how_to_get_it() -> None:
    refused = said(
        stderr="Can't modify brightness: Permission denied\n\n"
        "You should run this program with root privileges.\n"
        "Alternatively, get write permissions for device files.\n",
        returncode=1,
    )
    runner = RecordedRunner({(*INFO[:4], "set", "30%"): refused}, ["brightnessctl"])
    with pytest.raises(SystemSettingError, match=r"needs write access.*udev rule.*video group"):
        BrightnessctlBrightness(runner).write(30)


@pytest.mark.parametrize("value", [-1, 101, False, 7.5])
def test_brightnessctl_writes_only_whole_percents(value: object) -> None:
    runner = RecordedRunner({}, ["brightnessctl"])
    with pytest.raises((TypeError, ValueError), match=r"whole percent|from 0 to 100"):
        BrightnessctlBrightness(runner).write(value)  # type: ignore[arg-type]
    assert runner.calls == []
