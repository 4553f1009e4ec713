"""Fixtures: a PulseAudio and a PipeWire server with a null sink, started per test.

Each server lives in the test's tmp dir (runtime dir, config, state, home), and the test's
environment points pactl/wpctl at it, so the user's own audio is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require

__all__ = ["AudioServer", "pipewire_server", "pulse_server", "running_pulse"]

SINK = "hearth_test"
START_TIMEOUT_S = 15.0  # generous: CI runners have two slow cores
_POLL_S = 0.02

_PULSE_SCRIPT = """\
load-module module-native-protocol-unix socket={socket} auth-anonymous=1
load-module module-null-sink sink_name={sink}
set-default-sink {sink}
"""
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
    pulseaudio = _program("pulseaudio", "PulseAudio (Debian package pulseaudio)")
    _program("pactl", "pactl (Debian package pulseaudio-utils)")
    began = time.monotonic()
    with ExitStack() as stack:
        root = _private_dirs(stack, monkeypatch)
        socket, script = root / "native", root / "default.pa"
        script.write_text(_PULSE_SCRIPT.format(socket=socket, sink=SINK))
        monkeypatch.setenv("PULSE_SERVER", f"unix:{socket}")
        # No session bus: the daemon must neither announce itself on the user's nor autolaunch one.
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={root / 'no-bus'}")
        for name in ("PULSE_RUNTIME_PATH", "PULSE_COOKIE", "PULSE_SINK"):
            monkeypatch.delenv(name, raising=False)
        flags = ["--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disallow-exit"]
        argv = [pulseaudio, "-n", "-F", str(script), *flags]
        server = _spawn(stack, argv, root / "pulseaudio.log")
        query = ["pactl", "get-sink-volume", "@DEFAULT_SINK@"]
        _wait_until(lambda: _answers(query, "Volume:"), [server])
        yield AudioServer(root, SINK, time.monotonic() - began)


@pytest.fixture
def pipewire_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[AudioServer]:
    """A real PipeWire daemon and WirePlumber on a private D-Bus bus; wpctl reaches them."""
    dbus = _program("dbus-daemon", "dbus-daemon (Debian package dbus-daemon)")
    pipewire = _program("pipewire", "PipeWire (Debian package pipewire)")
    wireplumber = _program("wireplumber", "WirePlumber (Debian package wireplumber)")
    _program("wpctl", "wpctl (Debian package wireplumber)")
    began = time.monotonic()
    with ExitStack() as stack:
        root = _private_dirs(stack, monkeypatch)
        _write_pipewire_config(root / "config")
        bus, address = root / "run" / "bus", root / "bus.address"
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={bus}")
        for name in _PIPEWIRE_OVERRIDES:
            monkeypatch.delenv(name, raising=False)
        bus_argv = [dbus, "--session", "--nofork", "--nopidfile", f"--address=unix:path={bus}"]
        bus_daemon = _spawn(stack, [*bus_argv, "--print-address=1"], root / "dbus.log", address)
        # dbus-daemon prints its address only once it accepts connections.
        _wait_until(lambda: address.read_text().endswith("\n"), [bus_daemon])
        server = _spawn(stack, [pipewire], root / "pipewire.log")
        manager = _spawn(stack, [wireplumber], root / "wireplumber.log")
        # wpctl exits 0 with an empty answer until WirePlumber has chosen the default sink.
        query = ["wpctl", "get-volume", "@DEFAULT_AUDIO_SINK@"]
        _wait_until(lambda: _answers(query, "Volume:"), [bus_daemon, server, manager])
        yield AudioServer(root, SINK, time.monotonic() - began)


def _program(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        require(f"{package} is not installed")
    assert path is not None
    return path


def _private_dirs(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Not tmp_path: socket paths must stay under the 108 bytes a unix address holds.
    root = Path(tempfile.mkdtemp(prefix="hearth-audio-"))
    stack.callback(shutil.rmtree, root, ignore_errors=True)
    for sub in ("home", "config", "state", "run"):
        (root / sub).mkdir(parents=True)
    (root / "run").chmod(0o700)  # private, as the XDG spec requires of a runtime dir
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(root / "state"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root / "run"))
    return root


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


@dataclass
class _Started:
    argv: Sequence[str]
    process: subprocess.Popen[bytes]
    log: Path


def _spawn(
    stack: ExitStack, argv: Sequence[str], log: Path, stdout: Path | None = None
) -> _Started:
    """Start `argv` with its output in `log` (or `stdout`); the stack stops it and waits."""
    with ExitStack() as files:
        errors = files.enter_context(log.open("wb"))
        out = files.enter_context(stdout.open("wb")) if stdout else errors
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=errors)
    stack.callback(_stop, process)
    return _Started(argv, process, log)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _answers(argv: Sequence[str], prefix: str) -> bool:
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=2,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "LC_ALL": "C"},
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and done.stdout.startswith(prefix)


def _wait_until(ready: Callable[[], bool], started: Sequence[_Started]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready():
        gone = [one for one in started if one.process.poll() is not None]
        if gone or time.monotonic() > deadline:
            why = f"{gone[0].argv[0]} exited" if gone else f"not ready within {START_TIMEOUT_S:g} s"
            logs = "\n".join(
                f"--- {one.log.name}\n{one.log.read_text(errors='replace')}" for one in started
            )
            pytest.fail(f"the test audio server did not start ({why}):\n{logs}")
        time.sleep(_POLL_S)
