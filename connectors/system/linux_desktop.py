"""Do-not-disturb on GNOME-like desktops through `gsettings`.

GNOME's do-not-disturb switch is the `show-banners` key of `org.gnome.desktop.notifications`
turned off. Other desktops keep their own switch, so on them setting this key would change
nothing anyone sees: the control then reports itself unsupported rather than pretend.
"""

from __future__ import annotations

import os
from typing import ClassVar

from hearth.connectors.system.commands import Runner
from hearth.connectors.system.controls import Control, Setting, Value, checked_switch
from hearth.connectors.system.errors import CommandFailed

SCHEMA = "org.gnome.desktop.notifications"
KEY = "show-banners"
# Desktops whose notification banners obey org.gnome.desktop.notifications.
GNOME_LIKE = ("GNOME", "ubuntu", "Unity", "Budgie", "Pantheon")
_BOOLEANS = {"true": True, "false": False}


class GsettingsDnd(Control):
    """Do-not-disturb as GNOME's `show-banners` key, off when do-not-disturb is on."""

    setting: ClassVar[Setting] = "do_not_disturb"
    backend: ClassVar[str] = "gsettings"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def unsupported(self) -> str:
        if self.runner.which("gsettings") is None:
            return "gsettings is not installed"
        desktop = os.environ.get("XDG_CURRENT_DESKTOP", "")
        names = {name.lower() for name in desktop.split(":") if name}
        if not names & {name.lower() for name in GNOME_LIKE}:
            which = f"the desktop is {desktop}" if desktop else "no desktop session was found"
            return (
                f"{which}, not GNOME or a desktop built on it "
                f"({', '.join(GNOME_LIKE)}), so GNOME's do-not-disturb setting would do nothing"
            )
        try:
            done = self.runner.run(["gsettings", "list-keys", SCHEMA])
        except CommandFailed as error:
            return str(error)
        if done.returncode != 0 or KEY not in done.stdout.split():
            return f"GNOME's notification settings ({SCHEMA} {KEY}) are not installed"
        return ""

    def read(self) -> bool:
        done = self.runner.run(["gsettings", "get", SCHEMA, KEY]).checked()
        shown = done.stdout.strip()
        if shown not in _BOOLEANS:
            raise CommandFailed(f"gsettings gave an unexpected value for {KEY}: {shown[:80]!r}")
        return not _BOOLEANS[shown]

    def write(self, value: Value) -> None:
        banners = "false" if checked_switch(value) else "true"
        done = self.runner.run(["gsettings", "set", SCHEMA, KEY, banners]).checked()
        # dconf only warns and exits 0 when it cannot reach its service over the session bus.
        if "failed to commit changes to dconf" in done.stderr:
            said = done.stderr.split("failed to commit changes to dconf", 1)[1]
            why = said.strip(": \n").splitlines()[0] if said.strip(": \n") else "no reason given"
            raise CommandFailed(f"the change was not saved: dconf could not be reached ({why})")
