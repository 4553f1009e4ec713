"""`hearth` with no subcommand opens the desktop window, as the README's launch command does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_plain_hearth_opens_the_window_and_quits_cleanly(hearth_home: Path) -> None:
    hearth = Path(sys.executable).with_name("hearth")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        "HEARTH_QUIT_AFTER_MS": "3000",
    }
    done = subprocess.run([str(hearth)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
