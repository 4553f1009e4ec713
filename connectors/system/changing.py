"""Change a setting and prove it: read it, record the old value, write, read it back.

The old value is journalled before the write (`hearth.journal_step`), so a crash between the
two still leaves the undo. A read-back that differs from what was asked is reported, never
retried: the OS may have refused part of it (a volume limit, a backlight's few steps).
"""

from __future__ import annotations

from hearth import UndoFailed, journal_step
from hearth.connectors.system.controls import Control, Value
from hearth.connectors.system.errors import NotVerified, SystemSettingError
from hearth.connectors.system.results import Change


def change(control: Control, value: Value) -> Change:
    """Set `control` to `value`; the `Change` holds the value before and the one read back."""
    before = control.read()
    if matches(control, value, before):
        return Change(setting=control.setting, before=before, after=before)
    journal_step("changed", {"setting": control.setting, "before": before, "after": value})
    control.write(value)
    after = control.read()
    if not matches(control, value, after):
        raise NotVerified(
            f"{words(control.setting)} was set to {shown(value)} with {control.backend}, but "
            f"reads {shown(after)} now (it was {shown(before)})"
        )
    return Change(setting=control.setting, before=before, after=after)


def revert(control: Control, done: Change) -> str:
    """Put a setting back as it was before `done`; raises `UndoFailed` if it moved since."""
    try:
        now = control.read()
        if matches(control, done.before, now):
            return f"{words(done.setting)} is already {shown(done.before)}"
        if not matches(control, done.after, now):
            raise UndoFailed(
                f"{words(done.setting)} is {shown(now)} now, not the {shown(done.after)} Hearth "
                "set, so it was changed since; it is left as it is"
            )
        return f"{words(done.setting)} is {shown(change(control, done.before).after)} again"
    except SystemSettingError as error:
        raise UndoFailed(f"{words(done.setting)} could not be put back: {error}") from None


def matches(control: Control, wanted: Value, found: Value) -> bool:
    """Whether `found` is `wanted`, within the control's rounding for levels."""
    if isinstance(wanted, bool) or isinstance(found, bool):
        return wanted is found
    return abs(wanted - found) <= control.tolerance()


def words(setting: str) -> str:
    """A setting's name as people say it."""
    return _WORDS.get(setting, setting)


def shown(value: Value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value}%"


_WORDS = {
    "wifi": "Wi-Fi",
    "volume": "the volume",
    "mute": "mute",
    "brightness": "the brightness",
    "do_not_disturb": "do-not-disturb",
}
