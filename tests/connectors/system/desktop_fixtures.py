"""Fixtures: a D-Bus session bus with dconf for gsettings, and sysfs-like folders."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require

__all__ = ["backlight_dir", "session_bus"]

DCONF_SERVICE = Path("/usr/libexec/dconf-service")
NOTIFICATIONS_SCHEMA = "org.gnome.desktop.notifications"


def make_backlight(
    root: Path, name: str, value: int, maximum: int, kind: str | None = "raw"
) -> Path:
    """One backlight device folder as the kernel lays it out in /sys/class/backlight.

    `actual_brightness` is a link to `brightness`: in real sysfs the driver makes it follow what
    was written, and a plain file here would keep its old value forever.
    """
    device = root / name
    device.mkdir(parents=True)
    (device / "brightness").write_text(f"{value}\n")
    (device / "max_brightness").write_text(f"{maximum}\n")
    (device / "actual_brightness").symlink_to("brightness")
    if kind is not None:
        (device / "type").write_text(f"{kind}\n")
    return device


@pytest.fixture
def backlight_dir(tmp_path: Path) -> Path:
    """A /sys/class/backlight-like folder holding intel_backlight at 120000 of 240000."""
    root = tmp_path / "backlight"
    make_backlight(root, "intel_backlight", 120000, 240000)
    return root


@pytest.fixture
def session_bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private D-Bus session bus whose dconf-service keeps settings in a tmp dir.

    gsettings writes through dconf-service, which the bus starts on demand and which inherits
    the bus's HOME and XDG_* variables, so it saves to $XDG_CONFIG_HOME/dconf/user here. The
    process environment points DBUS_SESSION_BUS_ADDRESS, XDG_CONFIG_HOME, XDG_RUNTIME_DIR and
    XDG_CURRENT_DESKTOP=GNOME at it for the real CommandRunner.

    Not GSETTINGS_BACKEND=memory: the memory backend forgets everything when the gsettings
    process exits, so a value could never be read back by a second process, and reading back
    is how every change is verified.

    Yields the bus address. The bus is terminated afterwards, and any dconf-service it started
    is waited for (it exits when its bus goes away) or killed.
    """
    for program in ("dbus-daemon", "gsettings"):
        if shutil.which(program) is None:
            require(f"{program} is not installed")
    if not DCONF_SERVICE.exists():
        require(f"{DCONF_SERVICE} is not installed (the dconf-service package)")
    schema = subprocess.run(
        ["gsettings", "list-keys", NOTIFICATIONS_SCHEMA], capture_output=True, check=False
    )
    if schema.returncode != 0:
        require(f"the GSettings schema {NOTIFICATIONS_SCHEMA} (gsettings-desktop-schemas)")

    home = tmp_path / "bus-home"
    config = home / ".config"
    config.mkdir(parents=True)
    # A socket path must stay under ~108 bytes, which a long tmp_path would overflow.
    runtime = Path(tempfile.mkdtemp(prefix="hearth-bus-"))
    address = f"unix:path={runtime / 'bus'}"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(config),
        "XDG_RUNTIME_DIR": str(runtime),
        "DBUS_SESSION_BUS_ADDRESS": address,
    }
    env.pop("GSETTINGS_BACKEND", None)
    with (tmp_path / "dbus-daemon.log").open("w") as log:
        bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", f"--address={address}", "--print-address=1"],
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            env=env,
            text=True,
        )
    try:
        assert bus.stdout is not None
        ready = bus.stdout.readline().strip()
        if not ready:
            pytest.fail(f"dbus-daemon did not start: {(tmp_path / 'dbus-daemon.log').read_text()}")
        for name in ("XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"):
            monkeypatch.setenv(name, env[name])
        monkeypatch.setenv("XDG_CURRENT_DESKTOP", "GNOME")
        monkeypatch.delenv("GSETTINGS_BACKEND", raising=False)
        yield ready
    finally:
        started = _children(bus.pid, "dconf-service")
        bus.terminate()
        try:
            bus.wait(timeout=5)
        except subprocess.TimeoutExpired:
            bus.kill()
            bus.wait()
        if bus.stdout is not None:
            bus.stdout.close()
        for pid in started:
            _wait_gone(pid, "dconf-service")
        shutil.rmtree(runtime, ignore_errors=True)


def _children(parent: int, name: str) -> list[int]:
    """The ids of `parent`'s child processes named `name`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _stat(int(entry.name)) == (name, parent):
            found.append(int(entry.name))
    return found


def _stat(pid: int) -> tuple[str, int] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = stat[stat.index("(") + 1 : stat.rindex(")")]
    state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
    return (comm, int(ppid)) if state != "Z" else None


def _wait_gone(pid: int, name: str) -> None:
    # Orphaned when its bus exits, so only polled here; killed if it outlives the bus.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        stat = _stat(pid)
        if stat is None or stat[0] != name:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
