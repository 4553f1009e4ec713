"""Screen brightness on Linux: through `brightnessctl`, or straight through sysfs.

Both act on a backlight device under /sys/class/backlight, whose files the kernel documents in
Documentation/ABI/stable/sysfs-class-backlight: `brightness` (read-write), `actual_brightness`,
`max_brightness`, and `type` (firmware, platform or raw).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import ClassVar

from hearth.connectors.system.commands import Runner
from hearth.connectors.system.controls import Control, Setting, Value, checked_level
from hearth.connectors.system.errors import CommandFailed, SystemSettingError

BACKLIGHT_DIR = Path("/sys/class/backlight")
# The kernel docs ask user space to prefer firmware over platform over raw interfaces.
_TYPE_RANK = {"firmware": 0, "platform": 1, "raw": 2}
_WRITE_ACCESS_HINT = "install brightnessctl with its udev rule, or add this user to the video group"


def steps_tolerance(maximum: int) -> int:
    """How many percent one raw step of a backlight with `maximum` steps is, rounded up."""
    return max(1, math.ceil(100 / maximum))


class BrightnessctlBrightness(Control):
    """The backlight through `brightnessctl -m -c backlight` (machine-readable output)."""

    setting: ClassVar[Setting] = "brightness"
    backend: ClassVar[str] = "brightnessctl"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._maximum: int | None = None

    def unsupported(self) -> str:
        if self.runner.which("brightnessctl") is None:
            return "brightnessctl is not installed"
        try:
            done = self.runner.run(["brightnessctl", "-m", "-c", "backlight", "info"])
        except CommandFailed as error:
            return str(error)
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()
            why = said[0] if said else f"exit status {done.returncode}"
            return f"brightnessctl found no backlight device ({why})"
        return ""

    def read(self) -> int:
        done = self.runner.run(["brightnessctl", "-m", "-c", "backlight", "info"]).checked()
        current, maximum = _machine_line(done.stdout)
        self._maximum = maximum
        return round(100 * current / maximum)

    def write(self, value: Value) -> None:
        percent = checked_level(value)
        done = self.runner.run(["brightnessctl", "-m", "-c", "backlight", "set", f"{percent}%"])
        if done.returncode == 0:
            return
        said = f"{done.stderr}\n{done.stdout}"
        if "Permission denied" in said or "root privileges" in said:
            raise SystemSettingError(
                f"brightnessctl may not change the backlight: it needs write access "
                f"({_WRITE_ACCESS_HINT})"
            )
        done.checked()

    def tolerance(self) -> int:
        return 1 if self._maximum is None else steps_tolerance(self._maximum)


def _machine_line(stdout: str) -> tuple[int, int]:
    # brightnessctl.c, print_device(): "%s,%s,%d,%d%%,%d\n" = device, class, current,
    # percent (truncated), max. The percent is recomputed from the raw values, rounded.
    line = stdout.strip().splitlines()[0] if stdout.strip() else ""
    fields = line.split(",")
    try:
        current, maximum = int(fields[2]), int(fields[4])
    except (IndexError, ValueError):
        raise CommandFailed(f"brightnessctl gave unexpected output: {line[:80]!r}") from None
    if len(fields) != 5 or maximum <= 0 or not 0 <= current <= maximum:
        raise CommandFailed(f"brightnessctl gave unexpected output: {line[:80]!r}")
    return current, maximum


class SysfsBrightness(Control):
    """The backlight by reading and writing its files under /sys/class/backlight."""

    setting: ClassVar[Setting] = "brightness"
    backend: ClassVar[str] = "sysfs"

    def __init__(self, root: Path = BACKLIGHT_DIR) -> None:
        self.root = root

    def device(self) -> Path | None:
        """The backlight folder to use: firmware before platform before raw, then by name."""
        try:
            folders = [entry for entry in self.root.iterdir() if entry.is_dir()]
        except OSError:
            return None
        if not folders:
            return None
        return min(folders, key=lambda folder: (_type_rank(folder), folder.name))

    def unsupported(self) -> str:
        device = self.device()
        if device is None:
            return f"there is no backlight device in {self.root}"
        if not os.access(device / "brightness", os.W_OK):
            return f"no write access to {device / 'brightness'}: {_WRITE_ACCESS_HINT}"
        return ""

    def read(self) -> int:
        device = self._device()
        current_file = device / "actual_brightness"
        if not current_file.exists():
            current_file = device / "brightness"
        current, maximum = _read_int(current_file), _read_int(device / "max_brightness")
        if maximum <= 0:
            raise SystemSettingError(f"{device / 'max_brightness'} says {maximum}, not a level")
        return round(100 * min(current, maximum) / maximum)

    def write(self, value: Value) -> None:
        percent = checked_level(value)
        device = self._device()
        maximum = _read_int(device / "max_brightness")
        target = device / "brightness"
        try:
            target.write_text(str(round(percent * maximum / 100)), encoding="ascii")
        except PermissionError:
            raise SystemSettingError(
                f"changing the brightness needs write access to {target}: {_WRITE_ACCESS_HINT}"
            ) from None
        except OSError as error:
            raise SystemSettingError(f"could not write {target}: {error.strerror}") from None

    def tolerance(self) -> int:
        device = self.device()
        if device is None:
            return 1
        try:
            return steps_tolerance(_read_int(device / "max_brightness"))
        except SystemSettingError:
            return 1

    def _device(self) -> Path:
        device = self.device()
        if device is None:
            raise SystemSettingError(f"there is no backlight device in {self.root}")
        return device


def _type_rank(folder: Path) -> int:
    try:
        kind = (folder / "type").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return len(_TYPE_RANK)
    return _TYPE_RANK.get(kind, len(_TYPE_RANK))


def _read_int(path: Path) -> int:
    try:
        text = path.read_text(encoding="ascii").strip()
    except PermissionError:
        raise SystemSettingError(f"no permission to read {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        why = getattr(error, "strerror", None) or "not text"
        raise SystemSettingError(f"could not read {path}: {why}") from None
    if not text.isdigit():
        raise SystemSettingError(f"{path} holds {text[:40]!r}, not a whole number")
    return int(text)
