"""Fixtures: a PulseAudio and a PipeWire server with a null sink, started per test.

Each server lives in a private folder (runtime dir, config, state, home), and the test's
environment points pactl/wpctl at it, so the user's own audio is never touched. PulseAudio is
the evaluation's own (`hearth.connectors.evaluation.servers.pulse`); only pytest's part is here.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from hearth.connectors.evaluation.servers import ServerUnavailable
from hearth.connectors.evaluation.servers.daemons import (
    Environment,
    answers,
    private_dirs,
    program,
    spawn,
    wait_until,
)
from hearth.connectors.evaluation.servers.pulse import SINK, PulseAudio
from tests.conftest import require

__all__ = ["AudioServer", "pipewire_server", "pulse_server", "running_pulse"]

_PIPEWIRE_SINK = """\
context.objects = [
    { factory = adapter
      args = {
          factory.name = support.null-audio-sink
          node.name = %s
          media.class = Audio/Sink
          object.linger = true
          audio.position = [ FL FR ]
      }
    }
]
"""
# The test's WirePlumber must not reach for the machine's sound cards, cameras or Bluetooth:
# Lua settings for WirePlumber 0.4, a profile for 0.5; each version ignores the other's file.
_WIREPLUMBER_04 = {
    "main.lua.d/51-hearth-test.lua": (
        "alsa_monitor.enabled = false\nv4l2_monitor.enabled = false\n"
        "libcamera_monitor.enabled = false\n"
    ),
    "bluetooth.lua.d/51-hearth-test.lua": "bluez_monitor.enabled = false\n",
}
_PIPEWIRE_OVERRIDES = (
    "PIPEWIRE_REMOTE",
    "PIPEWIRE_RUNTIME_DIR",
    "PIPEWIRE_CONFIG_DIR",
    "WIREPLUMBER_CONFIG_DIR",
)
_WIREPLUMBER_05 = """\
wireplumber.profiles = {
  main = {
    monitor.alsa = disabled
    monitor.alsa-midi = disabled
    monitor.bluez = disabled
    monitor.v4l2 = disabled
    monitor.libcamera = disabled
  }
}
"""


@dataclass(frozen=True)
class AudioServer:
    """A running test audio server: its folder, its default sink, and how long it took."""

    root: Path
    sink: str
    started_in_s: float


@pytest.fixture
def pulse_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[AudioServer]:
    """A real PulseAudio daemon whose default sink is a null sink; pactl reaches it."""
    with running_pulse(monkeypatch) as server:
        yield server


@contextmanager
def running_pulse(monkeypatch: pytest.MonkeyPatch) -> Iterator[AudioServer]:
    """`pulse_server` outside a test (the benchmark), with `pytest.MonkeyPatch.context()`."""
    with ExitStack() as stack:
        root = _private_dirs(stack, monkeypatch)
        pulse = PulseAudio(root)
        _patch(monkeypatch, pulse.environment())
        stack.callback(pulse.stop)
        try:
            pulse.start(dict(os.environ))
        except ServerUnavailable as missing:
            require(str(missing))
        yield AudioServer(root, pulse.sink, pulse.started_in_s)


@pytest.fixture
def pipewire_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[AudioServer]:
    """A real PipeWire daemon and WirePlumber on a private D-Bus bus; wpctl reaches them."""
    try:
        dbus = program("dbus-daemon", "dbus-daemon", "dbus-daemon")
        pipewire = program("pipewire", "PipeWire", "pipewire")
        wireplumber = program("wireplumber", "WirePlumber", "wireplumber")
        program("wpctl", "wpctl", "wireplumber")
    except ServerUnavailable as missing:
        require(str(missing))
    began = time.monotonic()
    with ExitStack() as stack:
        root = _private_dirs(stack, monkeypatch)
        _write_pipewire_config(root / "config")
        bus, address = root / "run" / "bus", root / "bus.address"
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={bus}")
        for name in _PIPEWIRE_OVERRIDES:
            monkeypatch.delenv(name, raising=False)
        bus_argv = [dbus, "--session", "--nofork", "--nopidfile", f"--address=unix:path={bus}"]
        bus_daemon = spawn(stack, [*bus_argv, "--print-address=1"], root / "dbus.log", address)
        # dbus-daemon prints its address only once it accepts connections.
        wait_until(lambda: address.read_text().endswith("\n"), [bus_daemon], "dbus-daemon")
        server = spawn(stack, [pipewire], root / "pipewire.log")
        manager = spawn(stack, [wireplumber], root / "wireplumber.log")
        # wpctl exits 0 with an empty answer until WirePlumber has chosen the default sink.
        query = ["wpctl", "get-volume", "@DEFAULT_AUDIO_SINK@"]
        started = [bus_daemon, server, manager]
        wait_until(lambda: answers(query, "Volume:"), started, "the test PipeWire")
        yield AudioServer(root, SINK, time.monotonic() - began)


def _private_dirs(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Not tmp_path: socket paths must stay under the 108 bytes a unix address holds.
    root = Path(tempfile.mkdtemp(prefix="hearth-audio-"))
    stack.callback(shutil.rmtree, root, ignore_errors=True)
    _patch(monkeypatch, private_dirs(root))
    return root


def _patch(monkeypatch: pytest.MonkeyPatch, env: Environment) -> None:
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


def _write_pipewire_config(config: Path) -> None:
    sink = config / "pipewire" / "pipewire.conf.d" / "hearth-test-sink.conf"
    sink.parent.mkdir(parents=True)
    sink.write_text(_PIPEWIRE_SINK % SINK)
    for name, text in _WIREPLUMBER_04.items():
        path = config / "wireplumber" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    profile = config / "wireplumber" / "wireplumber.conf.d" / "51-hearth-test.conf"
    profile.parent.mkdir(parents=True)
    profile.write_text(_WIREPLUMBER_05)
