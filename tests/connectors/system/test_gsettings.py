"""Do-not-disturb through real gsettings and dconf on a private session bus."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.errors import CommandFailed
from hearth.connectors.system.linux_desktop import KEY, SCHEMA, GsettingsDnd
from tests.conftest import require


def _show_banners() -> str:
    """The key as another, independent gsettings process reads it."""
    done = subprocess.run(
        ["gsettings", "get", SCHEMA, KEY], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_dnd_is_written_and_read_back_through_dconf(session_bus: str) -> None:
    control = GsettingsDnd(CommandRunner())
    assert control.unsupported() == ""
    assert control.read() is False  # the schema's default: banners shown
    control.write(True)
    assert _show_banners() == "false"
    assert control.read() is True
    control.write(False)
    assert _show_banners() == "true"
    assert control.read() is False


def test_dnd_persists_in_the_private_dconf_database(session_bus: str, tmp_path: Path) -> None:
    GsettingsDnd(CommandRunner()).write(True)
    database = tmp_path / "bus-home" / ".config" / "dconf" / "user"
    assert database.is_file()
    assert GsettingsDnd(CommandRunner()).read() is True


def test_an_unreachable_dconf_never_passes_for_a_saved_change(
    session_bus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gsettings exits 0 when dconf cannot be reached, and prints its warning only when the
    failure arrives before it exits. When the warning comes, write() raises; either way the
    change is not saved, and the read-back shows it."""
    control = GsettingsDnd(CommandRunner())
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus'}")
    monkeypatch.delenv("DISPLAY", raising=False)
    for _ in range(5):
        try:
            control.write(True)
        except CommandFailed as error:
            assert "not saved: dconf could not be reached (Could not connect" in str(error)
        assert control.read() is False
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", session_bus)
    control.write(True)
    assert control.read() is True


@pytest.mark.parametrize("desktop", ["KDE", "XFCE", "sway", "LXQt"])
def test_a_desktop_that_is_not_gnome_like_is_named(
    desktop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Guard: on these desktops the GNOME key would change nothing the user sees."""
    runner = CommandRunner()
    if runner.which("gsettings") is None:
        require("gsettings is not installed")
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", desktop)
    reason = GsettingsDnd(runner).unsupported()
    assert reason.startswith(f"the desktop is {desktop}, not GNOME")
    assert "would do nothing" in reason


def test_no_desktop_session_is_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CommandRunner()
    if runner.which("gsettings") is None:
        require("gsettings is not installed")
    monkeypatch.delenv("XDG_CURRENT_DESKTOP", raising=False)
    assert GsettingsDnd(runner).unsupported().startswith("no desktop session was found")


@pytest.mark.parametrize("desktop", ["ubuntu:GNOME", "Budgie:GNOME", "Pantheon", "Unity"])
def test_gnome_like_desktops_are_supported(
    session_bus: str, desktop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", desktop)
    assert GsettingsDnd(CommandRunner()).unsupported() == ""


def test_a_missing_schema_is_unsupported(
    session_bus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GLib looks for schemas under $XDG_DATA_DIRS; an empty one has none."""
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "no-data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "no-data-home"))
    reason = GsettingsDnd(CommandRunner()).unsupported()
    assert reason == f"GNOME's notification settings ({SCHEMA} {KEY}) are not installed"


def test_missing_gsettings_is_unsupported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert GsettingsDnd(CommandRunner()).unsupported() == "gsettings is not installed"


@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_only_booleans_are_written(value: object) -> None:
    with pytest.raises(TypeError, match="True or False"):
        GsettingsDnd(CommandRunner()).write(value)  # type: ignore[arg-type]
