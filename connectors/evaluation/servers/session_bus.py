"""A private D-Bus session bus whose dconf-service keeps GSettings in a folder of its own.

gsettings writes through dconf-service, which the bus starts on demand and which inherits the
bus's HOME and XDG_* variables, so it saves to $XDG_CONFIG_HOME/dconf/user here; gsettings
reads that same file, so its own process must see the same XDG_CONFIG_HOME.

Not GSETTINGS_BACKEND=memory: the memory backend forgets everything when the gsettings process
exits, so a value could never be read back by a second process, and reading back is how every
change is verified.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from hearth.connectors.evaluation.servers import ServerUnavailable
from hearth.connectors.evaluation.servers.daemons import (
    Environment,
    ServerFailed,
    activated_by,
    merged,
    program,
    stop,
    wait_gone,
)

DCONF_SERVICE = Path("/usr/libexec/dconf-service")
NOTIFICATIONS_SCHEMA = "org.gnome.desktop.notifications"


def check_gsettings() -> None:
    """`ServerUnavailable`, saying what to install, unless gsettings can work on a private bus."""
    program("dbus-daemon", "dbus-daemon", "dbus-daemon")
    program("gsettings", "gsettings", "libglib2.0-bin")
    if not DCONF_SERVICE.exists():
        raise ServerUnavailable(
            f"{DCONF_SERVICE} is not installed: install it with `sudo apt install dconf-service`."
        )
    schema = subprocess.run(
        ["gsettings", "list-keys", NOTIFICATIONS_SCHEMA], capture_output=True, check=False
    )
    if schema.returncode != 0:
        raise ServerUnavailable(
            f"The GSettings schema {NOTIFICATIONS_SCHEMA} is not installed: install it with "
            "`sudo apt install gsettings-desktop-schemas`."
        )


class SessionBus:
    """`dbus-daemon --session` on a socket in `runtime` (keep it short: a unix socket path
    holds 108 bytes), with dconf keeping its database under `config`."""

    def __init__(self, home: Path, config: Path, runtime: Path) -> None:
        self.home, self.config, self.runtime = home, config, runtime
        self.address = f"unix:path={runtime / 'bus'}"
        self.log = runtime / "dbus-daemon.log"
        self._bus: subprocess.Popen[str] | None = None

    def environment(self) -> Environment:
        """What gsettings needs to reach this bus and read its dconf database, on a desktop
        that obeys GNOME's notification settings."""
        return {
            "XDG_CONFIG_HOME": str(self.config),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "DBUS_SESSION_BUS_ADDRESS": self.address,
            "XDG_CURRENT_DESKTOP": "GNOME",
            "GSETTINGS_BACKEND": None,
        }

    def start(self, env: Mapping[str, str]) -> str:
        """Start the bus with `env` plus this bus's variables; its address once it accepts
        connections. `ServerUnavailable` when a part is not installed."""
        check_gsettings()
        self.config.mkdir(parents=True, exist_ok=True)
        self.runtime.mkdir(parents=True, exist_ok=True)
        full = merged(env, {"HOME": str(self.home)}, self.environment())
        argv = ["dbus-daemon", "--session", "--nofork", f"--address={self.address}"]
        with self.log.open("w") as log:
            self._bus = subprocess.Popen(
                [*argv, "--print-address=1"],
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.DEVNULL,
                env=full,
                text=True,
            )
        assert self._bus.stdout is not None
        # dbus-daemon prints its address only once it accepts connections.
        ready = self._bus.stdout.readline().strip()
        if not ready:
            self.stop()
            raise ServerFailed(f"dbus-daemon did not start:\n{self.log.read_text()}")
        return ready

    def stop(self) -> None:
        """Stop the bus, and any dconf-service it started (it exits when its bus goes away);
        safe to call twice."""
        bus, self._bus = self._bus, None
        if bus is None:
            return
        started = activated_by(self.address, "dconf-service")
        stop(bus)
        if bus.stdout is not None:
            bus.stdout.close()
        for pid in started:
            wait_gone(pid, "dconf-service")
