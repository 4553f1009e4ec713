"""Volume and mute on Linux: PipeWire through `wpctl`, PulseAudio through `pactl`.

Both act on the default output (sink). Volume is read as a whole percent, which may exceed 100
when the sink is boosted; it is written as a whole percent from 0 to 100.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from decimal import Decimal
from typing import ClassVar

from hearth.connectors.system.commands import Output, Runner
from hearth.connectors.system.controls import (
    Control,
    Setting,
    Value,
    checked_level,
    checked_switch,
)
from hearth.connectors.system.errors import CommandFailed, SystemSettingError

__all__ = ["PactlMute", "PactlVolume", "WpctlMute", "WpctlVolume", "audio_controls"]

PROBE_TIMEOUT_S = 2.0
_WPCTL_SINK = "@DEFAULT_AUDIO_SINK@"
_PACTL_SINK = "@DEFAULT_SINK@"
# wpctl prints "Volume: %.2f" and appends " [MUTED]" (wireplumber src/tools/wpctl.c).
_WPCTL_VOLUME = re.compile(r"Volume: (?P<level>\d+\.\d+)(?P<muted> \[MUTED\])?")
# pactl prints "<channel>: <raw> / <percent>% / <dB> dB" per channel (pulseaudio src/utils/pactl.c).
_PACTL_PERCENT = re.compile(r":\s*\d+\s*/\s*(\d+)%")
_PACTL_MUTE = re.compile(r"Mute: (yes|no)")


class _SinkControl(Control):
    """A setting of the default sink, read with one query command (`query`)."""

    server: ClassVar[str]
    query: ClassVar[tuple[str, ...]]

    def __init__(self, runner: Runner) -> None:
        self._runner = runner

    def unsupported(self) -> str:
        program = self.query[0]
        if self._runner.which(program) is None:
            return f"{program} is not installed"
        try:
            output = self._runner.run(self.query, timeout=PROBE_TIMEOUT_S)
        except CommandFailed as error:
            return f"no {self.server} server answers ({error})"
        if output.returncode != 0:
            return f"no {self.server} server answers ({program}: {_first_line(output)})"
        try:
            self._parse(output)
        except SystemSettingError:
            return f"{self.server} has no default audio output ({program}: {_first_line(output)})"
        return ""

    def read(self) -> Value:
        return self._parse(self._runner.run(self.query).checked())

    @abstractmethod
    def _parse(self, output: Output) -> Value:
        """The setting from the query's output; `SystemSettingError` when it is not there."""

    def _change(self, *args: str) -> None:
        self._runner.run((self.query[0], *args)).checked()


class _Wpctl(_SinkControl):
    backend = "wpctl"
    server = "PipeWire"
    query = ("wpctl", "get-volume", _WPCTL_SINK)

    def _state(self, output: Output) -> tuple[int, bool]:
        found = _WPCTL_VOLUME.fullmatch(output.stdout.strip())
        if found is None:
            raise _unreadable(output, "volume")
        return round(Decimal(found["level"]) * 100), found["muted"] is not None


class WpctlVolume(_Wpctl):
    """The default output's volume through PipeWire's `wpctl`."""

    setting: ClassVar[Setting] = "volume"

    def _parse(self, output: Output) -> Value:
        return self._state(output)[0]

    def write(self, value: Value) -> None:
        self._change("set-volume", _WPCTL_SINK, f"{checked_level(value) / 100:.2f}")


class WpctlMute(_Wpctl):
    """Whether the default output is muted, through PipeWire's `wpctl`."""

    setting: ClassVar[Setting] = "mute"

    def _parse(self, output: Output) -> Value:
        return self._state(output)[1]

    def write(self, value: Value) -> None:
        self._change("set-mute", _WPCTL_SINK, "1" if checked_switch(value) else "0")


class PactlVolume(_SinkControl):
    """The default output's volume through PulseAudio's `pactl` (also served by pipewire-pulse)."""

    setting: ClassVar[Setting] = "volume"
    backend = "pactl"
    server = "PulseAudio"
    query = ("pactl", "get-sink-volume", _PACTL_SINK)

    def _parse(self, output: Output) -> Value:
        first = output.stdout.strip().splitlines()[:1]
        percents = _PACTL_PERCENT.findall(first[0]) if first else []
        if not first or not first[0].startswith("Volume:") or not percents:
            raise _unreadable(output, "volume")
        # The loudest channel is the sink's volume, as PulseAudio's own mixers show it.
        return max(int(percent) for percent in percents)

    def write(self, value: Value) -> None:
        self._change("set-sink-volume", _PACTL_SINK, f"{checked_level(value)}%")


class PactlMute(_SinkControl):
    """Whether the default output is muted, through PulseAudio's `pactl`."""

    setting: ClassVar[Setting] = "mute"
    backend = "pactl"
    server = "PulseAudio"
    query = ("pactl", "get-sink-mute", _PACTL_SINK)

    def _parse(self, output: Output) -> Value:
        found = _PACTL_MUTE.fullmatch(output.stdout.strip())
        if found is None:
            raise _unreadable(output, "mute state")
        return found[1] == "yes"

    def write(self, value: Value) -> None:
        self._change("set-sink-mute", _PACTL_SINK, "1" if checked_switch(value) else "0")


def audio_controls(runner: Runner) -> list[Control]:
    """The Linux volume and mute controls, most preferred first: PipeWire, then PulseAudio."""
    return [WpctlVolume(runner), WpctlMute(runner), PactlVolume(runner), PactlMute(runner)]


def _first_line(output: Output) -> str:
    said = (output.stderr.strip() or output.stdout.strip()).splitlines()
    return said[0] if said else f"exit status {output.returncode}"


def _unreadable(output: Output, what: str) -> SystemSettingError:
    command = " ".join(output.argv)
    printed = output.stdout.strip()
    if not printed:
        return SystemSettingError(f"`{command}` printed no {what}; it said: {_first_line(output)}")
    return SystemSettingError(f"`{command}` printed no {what} Hearth can read: {printed[:200]!r}")
