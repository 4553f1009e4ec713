"""A real Radicale CalDAV server on loopback, run from a throwaway config for the tests.

It can be stopped and started again on the same port with the same storage, which is how the
tests take the server away (offline) and bring it back.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import require

USER, PASSWORD = "alice", "correct horse"
OTHER_USER, OTHER_PASSWORD = "bob", "battery staple"
_START_TIMEOUT_S = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RadicaleServer:
    """`python -m radicale` on 127.0.0.1 with htpasswd logins and strict preconditions."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        if importlib.util.find_spec("radicale") is None:
            require("Radicale (pip install radicale) for the CalDAV tests")
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "users").write_text(f"{USER}:{PASSWORD}\n{OTHER_USER}:{OTHER_PASSWORD}\n")
        (folder / "config").write_text(
            "[server]\n"
            f"hosts = 127.0.0.1:{self.port}\n"
            "[auth]\n"
            "type = htpasswd\n"
            f"htpasswd_filename = {folder / 'users'}\n"
            "htpasswd_encryption = plain\n"
            "[rights]\n"
            "type = owner_only\n"
            "[storage]\n"
            f"filesystem_folder = {folder / 'collections'}\n"
            "strict_preconditions = True\n"
            "[logging]\n"
            "level = warning\n"
        )

    @property
    def url(self) -> str:
        """The bare server URL a user would type; discovery finds the rest."""
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> RadicaleServer:
        log = (self.folder / "server.log").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--config", str(self.folder / "config")],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Radicale exited: {(self.folder / 'server.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("Radicale did not start listening in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
