"""One small interface per setting: a `Control` reads and changes it through one backend.

A control says whether it works on this machine (`unsupported()` returns "" or the reason in
words: "wpctl is not installed", "NetworkManager is not running"). Values are plain: Wi-Fi,
mute and do-not-disturb are booleans, volume and brightness whole percents from 0 to 100.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Literal

Setting = Literal["wifi", "volume", "mute", "brightness", "do_not_disturb"]
SETTINGS: tuple[Setting, ...] = ("wifi", "volume", "mute", "brightness", "do_not_disturb")
LEVELS: frozenset[Setting] = frozenset({"volume", "brightness"})
Value = bool | int


class Control(ABC):
    """Reads and changes one setting through one backend (`backend` names it, e.g. "wpctl")."""

    setting: ClassVar[Setting]
    backend: ClassVar[str]

    @abstractmethod
    def unsupported(self) -> str:
        """Why this control cannot work on this machine, or "" when it can. Cheap: it looks
        for the program and may run one quick command, but never changes anything."""

    @abstractmethod
    def read(self) -> Value:
        """The setting now; raises a `SystemSettingError` when it cannot be read."""

    @abstractmethod
    def write(self, value: Value) -> None:
        """Change the setting; raises a `SystemSettingError` when the OS refuses."""

    def tolerance(self) -> int:
        """How far a level read back may be from the one asked for and still be it: 1 for
        rounding, more for a backlight with few steps (8 steps: 100 / 7, rounded up)."""
        return 1

    def detail(self) -> str:
        """More about the current state, e.g. the Wi-Fi network joined; "" for nothing."""
        return ""


def checked_level(value: Value) -> int:
    """`value` as a whole percent from 0 to 100, the only thing a level command is built from.

    Anything else is our bug, not the world's: the tools validate levels before a control sees
    them. So this raises `TypeError` or `ValueError`, never a `ToolFailure`, and runs nothing.
    """
    if type(value) is not int:
        raise TypeError(f"a level is a whole percent, not {value!r}")
    if not 0 <= value <= 100:
        raise ValueError(f"a level is from 0 to 100, not {value}")
    return value


def checked_switch(value: Value) -> bool:
    """`value` as on or off; anything but a bool is our bug (see `checked_level`)."""
    if type(value) is not bool:
        raise TypeError(f"a switch is True or False, not {value!r}")
    return value


@dataclass(frozen=True)
class Battery:
    """The battery now: charge in percent, whether on mains power, and time left if known."""

    percent: int
    plugged: bool
    minutes_left: int | None = None


class BatteryReader(ABC):
    """Reads the battery through one backend (psutil, upower)."""

    backend: ClassVar[str]

    @abstractmethod
    def unsupported(self) -> str:
        """Why this reader cannot work here, or ""."""

    @abstractmethod
    def read(self) -> Battery | None:
        """The battery, or None on a machine without one (a desktop)."""
