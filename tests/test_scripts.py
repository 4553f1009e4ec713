"""scripts/run and scripts/test share one set-up, and a finished set-up is only a stamp check."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.conftest import require

ROOT = Path(__file__).resolve().parents[1]
STAMP = ROOT / ".venv" / ".hearth-setup"
# All a warm set-up may use: no apt, dpkg, compiler, pip or Python.
WARM_TOOLS = ("bash", "cat", "cut", "dirname", "sha256sum")


def setup_calls(script: str) -> list[str]:
    text = (ROOT / "scripts" / script).read_text(encoding="utf-8")
    return re.findall(r'^"\$root/scripts/setup"(.*)$', text, flags=re.MULTILINE)


def current_stamp() -> str:
    """What scripts/setup writes once everything is in place: its inputs' hash."""
    inputs = (ROOT / "pyproject.toml").read_bytes() + (ROOT / "scripts" / "setup").read_bytes()
    return hashlib.sha256(inputs + b"test\n").hexdigest()


def test_run_and_test_install_the_same_extras() -> None:
    assert setup_calls("run") == setup_calls("test") == [""]


def test_a_finished_set_up_needs_nothing_but_its_stamp(tmp_path: Path) -> None:
    if not STAMP.exists() or STAMP.read_text().strip() != current_stamp():
        require("a finished, current scripts/setup (scripts/test runs it first)")
    for tool in WARM_TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (tmp_path / tool).symlink_to(found)
    env = {**os.environ, "PATH": str(tmp_path)}
    done = subprocess.run(
        [str(ROOT / "scripts" / "setup")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
