"""Without a display, `hearth` says so in one line instead of letting Qt abort."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.ui.app import display_missing


def test_hearth_without_a_display_says_so_and_points_to_the_terminal(hearth_home: Path) -> None:
    hearth = Path(sys.executable).with_name("hearth")
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["HEARTH_HOME"] = str(hearth_home)
    done = subprocess.run([str(hearth)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "display" in lines[0]
    assert "scripts/run chat" in lines[0]


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, True),
        ({"DISPLAY": ":0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "wayland;offscreen"}, False),
        ({"DISPLAY": ""}, True),
    ],
)
def test_which_environments_lack_a_display(env: dict[str, str], missing: bool) -> None:
    assert display_missing(env, platform="linux") is missing


def test_other_systems_always_have_a_display() -> None:
    assert not display_missing({}, platform="darwin")
    assert not display_missing({}, platform="win32")
