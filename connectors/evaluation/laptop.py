"""The laptop a scenario runs on: its five settings behind the system connector's real backends.

Volume and mute live in a private PulseAudio, do-not-disturb in dconf on a private session bus,
brightness in a sysfs-like backlight folder, and Wi-Fi in a modelled radio (`LoopbackRadio`).
While the laptop runs, this process's environment points pactl and gsettings at them, so the
user's own sound and desktop settings are never touched.

XDG_CONFIG_HOME moves too (gsettings reads dconf's database from there), so whatever runs
alongside should keep its own files under HEARTH_HOME, as the evaluation does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from pathlib import Path

from hearth.connectors.evaluation.backlight import make_backlight
from hearth.connectors.evaluation.radio import LoopbackRadio
from hearth.connectors.evaluation.servers.daemons import (
    Environment,
    ServerFailed,
    merged,
    private_dirs,
    quiet_run,
)
from hearth.connectors.evaluation.servers.pulse import PulseAudio
from hearth.connectors.evaluation.servers.session_bus import SessionBus, check_gsettings
from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.controls import SETTINGS, checked_level, checked_switch
from hearth.connectors.system.linux_audio import audio_controls
from hearth.connectors.system.linux_backlight import SysfsBrightness
from hearth.connectors.system.linux_desktop import KEY, SCHEMA, GsettingsDnd
from hearth.connectors.system.machine import Machine

BACKLIGHT = "intel_backlight"
# A laptop panel's raw range; a multiple of 100, so every whole percent is exact.
BACKLIGHT_MAX = 120000
DEFAULTS: dict[str, bool | int] = {
    "wifi": True,
    "volume": 100,
    "mute": False,
    "brightness": 50,
    "do_not_disturb": False,
}
_SINK = "@DEFAULT_SINK@"
_PERCENT = re.compile(r"/\s*(\d+)%")
# The user's own PipeWire must stay out of reach of wpctl, which the machine probes first.
_NO_PIPEWIRE: Environment = {"PIPEWIRE_REMOTE": None, "PIPEWIRE_RUNTIME_DIR": None}


class Laptop:
    """The settings a scenario starts from and is judged on, behind the system connector's real
    backends: a private PulseAudio for volume and mute, gsettings on a private session bus
    (dconf) for do-not-disturb, a sysfs backlight folder for brightness, and the Wi-Fi radio.

    It starts from `DEFAULTS`; `on_wifi(on)` is called whenever the radio switches.
    """

    def __init__(self, folder: Path, on_wifi: Callable[[bool], None] = lambda on: None) -> None:
        self.folder = folder
        self.backlight = folder / "backlight"
        self.radio = LoopbackRadio(on_wifi)
        self._stack: ExitStack | None = None
        self._saved: dict[str, str | None] = {}

    def start(self) -> Laptop:
        """Start the daemons and point this process at them; `ServerUnavailable` (with the apt
        command) when a program is missing, `ServerFailed` when a daemon does not come up."""
        if self._stack is not None:
            return self
        check_gsettings()
        stack = ExitStack()
        try:
            self._start(stack)
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return self

    def _start(self, stack: ExitStack) -> None:
        # Not under `folder`: a unix socket path must stay under 108 bytes.
        root = Path(tempfile.mkdtemp(prefix="hearth-laptop-"))
        stack.callback(shutil.rmtree, root, ignore_errors=True)
        dirs = private_dirs(root)
        base = merged(os.environ, dirs, _NO_PIPEWIRE)
        bus = SessionBus(root / "home", root / "config", root / "run")
        stack.callback(bus.stop)
        bus.start(base)
        pulse = PulseAudio(root)
        stack.callback(pulse.stop)
        pulse.start(base)
        shutil.rmtree(self.backlight, ignore_errors=True)
        raw = BACKLIGHT_MAX * int(DEFAULTS["brightness"]) // 100
        make_backlight(self.backlight, BACKLIGHT, raw, BACKLIGHT_MAX)
        self.radio.on = bool(DEFAULTS["wifi"])
        stack.callback(self._restore_environment)
        self._set_environment({**pulse.environment(), **bus.environment(), **_NO_PIPEWIRE})

    def stop(self) -> None:
        """Stop every daemon and restore the environment; safe to call twice, or after a failed
        start."""
        stack, self._stack = self._stack, None
        if stack is not None:
            stack.close()

    def machine(self) -> Machine:
        """The system connector's real Linux controls on this laptop, plus its radio."""
        runner = CommandRunner()
        controls = [
            self.radio,
            *audio_controls(runner),
            SysfsBrightness(root=self.backlight),
            GsettingsDnd(runner),
        ]
        return Machine(controls)

    def apply(self, settings: Mapping[str, bool | int]) -> None:
        """Set `settings` directly, as the user would before the scenario: with pactl, gsettings,
        the backlight file and the radio, never through the connector."""
        self._started()
        unknown = set(settings) - set(SETTINGS)
        if unknown:
            raise ValueError(f"a laptop has no setting {sorted(unknown)}; it has {SETTINGS}")
        for setting, value in settings.items():
            if setting == "wifi":
                self.radio.write(checked_switch(value))
            elif setting == "volume":
                _run("pactl", "set-sink-volume", _SINK, f"{checked_level(value)}%")
            elif setting == "mute":
                _run("pactl", "set-sink-mute", _SINK, "1" if checked_switch(value) else "0")
            elif setting == "brightness":
                raw = checked_level(value) * _maximum(self._device()) // 100
                (self._device() / "brightness").write_text(f"{raw}\n")
            else:
                banners = "false" if checked_switch(value) else "true"
                _saved(_run("gsettings", "set", SCHEMA, KEY, banners))

    def read(self) -> dict[str, bool | int]:
        """The five settings now, read straight from pactl, gsettings, the backlight files and
        the radio, never through the connector."""
        self._started()
        volume = _PERCENT.findall(_run("pactl", "get-sink-volume", _SINK).stdout)
        mute = _run("pactl", "get-sink-mute", _SINK).stdout.strip()
        banners = _run("gsettings", "get", SCHEMA, KEY).stdout.strip()
        if not volume or mute not in ("Mute: yes", "Mute: no"):
            raise ServerFailed(f"pactl printed no volume or mute state: {volume!r}, {mute!r}")
        if banners not in ("true", "false"):
            raise ServerFailed(f"gsettings printed {banners!r} for {KEY}")
        device = self._device()
        current = int((device / "brightness").read_text())
        return {
            "wifi": self.radio.read(),
            "volume": max(int(percent) for percent in volume),
            "mute": mute == "Mute: yes",
            "brightness": round(100 * current / _maximum(device)),
            "do_not_disturb": banners == "false",
        }

    def _started(self) -> None:
        if self._stack is None:
            raise RuntimeError("start the laptop before applying or reading its settings")

    def _device(self) -> Path:
        return self.backlight / BACKLIGHT

    def _set_environment(self, changes: Environment) -> None:
        for name, value in changes.items():
            self._saved.setdefault(name, os.environ.get(name))
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def _restore_environment(self) -> None:
        saved, self._saved = self._saved, {}
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _maximum(device: Path) -> int:
    return int((device / "max_brightness").read_text())


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    done = quiet_run(argv, 10)
    if done.returncode != 0:
        said = done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}"
        raise ServerFailed(f"`{' '.join(argv)}` failed: {said.splitlines()[0]}")
    return done


def _saved(done: subprocess.CompletedProcess[str]) -> None:
    # gsettings exits 0 even when dconf-service could not be reached to save the change.
    if "failed to commit changes to dconf" in done.stderr:
        raise ServerFailed(f"gsettings could not save the change: {done.stderr.strip()}")
