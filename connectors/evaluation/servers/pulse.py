"""A private PulseAudio daemon with a null sink: the volume and mute `pactl` changes.

It listens on a socket of its own and joins no session bus, so the user's sound is never
touched; `pactl` reaches it through PULSE_SERVER.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

from hearth.connectors.evaluation.servers.daemons import (
    Environment,
    answers,
    merged,
    program,
    spawn,
    wait_until,
)

SINK = "hearth_test"

_SCRIPT = """\
load-module module-native-protocol-unix socket={socket} auth-anonymous=1
load-module module-null-sink sink_name={sink}
set-default-sink {sink}
"""
_FLAGS = ("--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disallow-exit")


class PulseAudio:
    """`pulseaudio -n` in `root` (keep it short: a unix socket path holds 108 bytes), whose
    default sink is the null sink `sink`."""

    def __init__(self, root: Path, sink: str = SINK) -> None:
        self.root = root
        self.sink = sink
        self.socket = root / "native"
        self.started_in_s = 0.0
        self._stack = ExitStack()

    def environment(self) -> Environment:
        """The variables that point `pactl` (and the daemon) at this server and nowhere else."""
        return {
            "PULSE_SERVER": f"unix:{self.socket}",
            # No session bus: the daemon must neither announce itself on one nor autolaunch one.
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.root / 'no-bus'}",
            "PULSE_RUNTIME_PATH": None,
            "PULSE_COOKIE": None,
            "PULSE_SINK": None,
        }

    def start(self, env: Mapping[str, str]) -> PulseAudio:
        """Start the daemon with `env` plus `environment()`, and wait until pactl reads its
        volume; `ServerUnavailable` when PulseAudio is not installed, `ServerFailed` with its
        log when it does not come up."""
        pulseaudio = program("pulseaudio", "PulseAudio", "pulseaudio")
        program("pactl", "pactl", "pulseaudio-utils")
        began = time.monotonic()
        script = self.root / "default.pa"
        script.write_text(_SCRIPT.format(socket=self.socket, sink=self.sink))
        full = merged(env, self.environment())
        argv = [pulseaudio, "-n", "-F", str(script), *_FLAGS]
        try:
            server = spawn(self._stack, argv, self.root / "pulseaudio.log", env=full)
            query = ["pactl", "get-sink-volume", "@DEFAULT_SINK@"]
            wait_until(lambda: answers(query, "Volume:", full), [server], "PulseAudio")
        except BaseException:
            self.stop()
            raise
        self.started_in_s = time.monotonic() - began
        return self

    def stop(self) -> None:
        """Stop the daemon and wait for it; safe to call twice."""
        self._stack.close()
