"""A private Secret Service: gnome-keyring-daemon on a D-Bus session bus of its own.

The bus is given a configuration without the system's service folders, so nothing on it can
be started on demand: a second, locked gnome-keyring (or a password prompt) can never answer
in place of the one started here. The daemon unlocks its login keyring with a password read
from its standard input, as a desktop session does at log-in, and keeps the keyring file in a
folder of its own.
"""

from __future__ import annotations

import os
import subprocess
from contextlib import ExitStack
from pathlib import Path

from hearth.connectors.evaluation.servers.daemons import (
    Started,
    merged,
    private_dirs,
    program,
    quiet_run,
    spawn,
    stop,
    wait_until,
)

SECRETS_NAME = "org.freedesktop.secrets"
LOGIN_PASSWORD = "hearth test login"
_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


class SecretService:
    """gnome-keyring-daemon serving the Secret Service API on a private bus under `root`
    (keep it short: the bus is a unix socket, whose path holds 108 bytes)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.address = f"unix:path={root / 'bus'}"
        self._stack = ExitStack()

    def start(self) -> str:
        """Start the bus and the keyring, unlocked; the bus address once the Secret Service
        answers on it. `ServerUnavailable` says what to install when a part is missing."""
        program("dbus-daemon", "dbus-daemon", "dbus-daemon")
        keyring_daemon = program("gnome-keyring-daemon", "GNOME Keyring", "gnome-keyring")
        program("dbus-send", "dbus-send", "dbus-bin")
        env = merged(
            os.environ,
            private_dirs(self.root),
            {"XDG_DATA_HOME": str(self.root / "data"), "DBUS_SESSION_BUS_ADDRESS": self.address},
        )
        config = self.root / "bus.conf"
        config.write_text(_BUS_CONFIG.format(socket=self.root / "bus"), encoding="utf-8")
        try:
            bus = spawn(
                self._stack,
                ["dbus-daemon", "--nofork", f"--config-file={config}"],
                self.root / "dbus-daemon.log",
                env=env,
            )
            wait_until(lambda: self._owned("org.freedesktop.DBus", env), [bus], "dbus-daemon")
            keyring = self._start_keyring(keyring_daemon, env)
            wait_until(lambda: self._owned(SECRETS_NAME, env), [bus, keyring], "gnome-keyring")
        except BaseException:
            self.stop()
            raise
        return self.address

    def stop(self) -> None:
        """Stop the keyring and the bus; safe to call twice."""
        self._stack.close()

    def _start_keyring(self, argv0: str, env: dict[str, str]) -> Started:
        log = self.root / "gnome-keyring.log"
        argv = [argv0, "--foreground", "--unlock", "--components=secrets"]
        with log.open("wb") as output:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=output, stderr=output, env=env
            )
        self._stack.callback(stop, process)
        assert process.stdin is not None
        # The login password, as a display manager hands it over: on stdin, then end of file.
        process.stdin.write(LOGIN_PASSWORD.encode())
        process.stdin.close()
        return Started(argv, process, log)

    @staticmethod
    def _owned(name: str, env: dict[str, str]) -> bool:
        argv = [
            "dbus-send",
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            f"string:{name}",
        ]
        try:
            done = quiet_run(argv, 2, env)
        except subprocess.TimeoutExpired:
            return False
        return done.returncode == 0 and "boolean true" in done.stdout
