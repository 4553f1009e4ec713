"""A backlight device folder laid out as the kernel lays out /sys/class/backlight/<name>."""

from __future__ import annotations

from pathlib import Path


def make_backlight(
    root: Path, name: str, value: int, maximum: int, kind: str | None = "raw"
) -> Path:
    """Make `root/name` with `brightness`, `max_brightness`, `actual_brightness` and `type`
    (Documentation/ABI/stable/sysfs-class-backlight); its path.

    `actual_brightness` is a link to `brightness`: in real sysfs the driver makes it follow what
    was written, and a plain file here would keep its old value forever.
    """
    device = root / name
    device.mkdir(parents=True)
    (device / "brightness").write_text(f"{value}\n")
    (device / "max_brightness").write_text(f"{maximum}\n")
    (device / "actual_brightness").symlink_to("brightness")
    if kind is not None:
        (device / "type").write_text(f"{kind}\n")
    return device
