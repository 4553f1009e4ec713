"""The real servers an evaluation (and the test suite) runs on loopback, started on demand."""

from __future__ import annotations

import socket

from hearth import HearthError


class ServerUnavailable(HearthError):
    """A server the evaluation needs cannot start here; the message says what to install."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
