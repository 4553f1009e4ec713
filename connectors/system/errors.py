"""What goes wrong when reading or changing a setting, worded for the model and the user."""

from __future__ import annotations

from hearth import ToolFailure


class SystemSettingError(ToolFailure):
    """A setting could not be read or changed; the message says why."""


class NotSupported(SystemSettingError):
    """No backend for the setting works on this machine."""

    def __init__(self, setting: str, reason: str) -> None:
        super().__init__(f"{setting} is not supported on this machine: {reason}")
        self.setting = setting
        self.reason = reason


class CommandFailed(SystemSettingError):
    """A command the backend ran failed, timed out or could not be started."""


class NotVerified(SystemSettingError):
    """A change was made but reading the setting back shows another value."""
