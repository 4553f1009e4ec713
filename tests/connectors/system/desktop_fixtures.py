"""Fixtures: a D-Bus session bus with dconf for gsettings, and sysfs-like folders.

The bus and the backlight folder are the evaluation's own
(`hearth.connectors.evaluation.servers.session_bus`, `hearth.connectors.evaluation.backlight`);
only pytest's part is here.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.connectors.evaluation.backlight import make_backlight
from hearth.connectors.evaluation.servers import ServerUnavailable
from hearth.connectors.evaluation.servers.session_bus import SessionBus
from tests.conftest import require

__all__ = ["backlight_dir", "make_backlight", "session_bus"]


@pytest.fixture
def backlight_dir(tmp_path: Path) -> Path:
    """A /sys/class/backlight-like folder holding intel_backlight at 120000 of 240000."""
    root = tmp_path / "backlight"
    make_backlight(root, "intel_backlight", 120000, 240000)
    return root


@pytest.fixture
def session_bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private D-Bus session bus whose dconf-service keeps settings under tmp_path/bus-home.

    The process environment points DBUS_SESSION_BUS_ADDRESS, XDG_CONFIG_HOME, XDG_RUNTIME_DIR
    and XDG_CURRENT_DESKTOP=GNOME at it for the real CommandRunner. Yields the bus address. The
    bus is terminated afterwards, and any dconf-service it started is waited for or killed.
    """
    home = tmp_path / "bus-home"
    # A socket path must stay under ~108 bytes, which a long tmp_path would overflow.
    runtime = Path(tempfile.mkdtemp(prefix="hearth-bus-"))
    bus = SessionBus(home, home / ".config", runtime)
    try:
        try:
            address = bus.start(dict(os.environ))
        except ServerUnavailable as missing:
            require(str(missing))
        for name, value in bus.environment().items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        yield address
    finally:
        bus.stop()
        shutil.rmtree(runtime, ignore_errors=True)
