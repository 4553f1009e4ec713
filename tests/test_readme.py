"""Every command in the README's ```sh blocks exists on a fresh clone and at least parses.

`scripts/run X` is `.venv/bin/hearth X` once set-up is done (the script's last line), so those
run through `.venv/bin/hearth` and never set anything up here. A few read-only commands run
as written, in a temporary HEARTH_HOME; every other command runs with `--help` appended, so
nothing downloads, opens a window or builds. `scripts/test` is only checked to exist: it is
what runs this test.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
HEARTH = ROOT / ".venv" / "bin" / "hearth"
# Read-only commands, run exactly as the README writes them.
AS_WRITTEN = {
    ("scripts/run", "models", "list"),
    ("scripts/run", "models", "threads"),
    ("scripts/run", "audit", "list"),
    ("scripts/run", "files", "list"),
    ("scripts/run", "calendar", "list"),
    ("scripts/run", "calendar", "status"),
    ("scripts/run", "calendar", "events", "thursday"),
    ("scripts/run", "calendar", "conflicts"),
    ("scripts/run", "mail", "list"),
    ("scripts/run", "mail", "status"),
    ("scripts/run", "mail", "outbox"),
    ("scripts/run", "undo", "--list"),
    ("scripts/run", "voice", "status"),
    ("scripts/run", "voice", "models"),
}
NOT_RUN = {("scripts/test",)}


def sh_commands(markdown: str) -> list[tuple[str, ...]]:
    """The commands of every ```sh block, one per line, with their comments dropped."""
    blocks = re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.DOTALL | re.MULTILINE)
    commands = [tuple(shlex.split(line, comments=True)) for b in blocks for line in b.splitlines()]
    return [command for command in commands if command]


def problem(command: tuple[str, ...], home: Path) -> str | None:
    """Why `command` would not work on a fresh clone, or None if it does."""
    program = ROOT / command[0]
    if not (program.is_file() and os.access(program, os.X_OK)):
        return f"{command[0]} is not an executable in the checkout"
    if command in NOT_RUN:
        return None
    argv = [str(HEARTH), *command[1:]] if command[0] == "scripts/run" else list(command)
    if command not in AS_WRITTEN:
        argv.append("--help")
    env = {**os.environ, "HEARTH_HOME": str(home)}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[-2000:]}"
    return None


COMMANDS = sh_commands(README.read_text(encoding="utf-8"))


def test_the_readme_has_commands_to_check() -> None:
    assert ("scripts/run",) in COMMANDS
    assert any(command[0] == "scripts/run" and len(command) > 2 for command in COMMANDS)


def test_scripts_run_is_the_hearth_command_after_set_up() -> None:
    script = (ROOT / "scripts" / "run").read_text(encoding="utf-8")
    assert script.rstrip().splitlines()[-1] == 'exec "$root/.venv/bin/hearth" "$@"'


@pytest.mark.parametrize("command", COMMANDS, ids=shlex.join)
def test_readme_command_works(command: tuple[str, ...], tmp_path: Path) -> None:
    assert problem(command, tmp_path) is None


@pytest.mark.parametrize(
    "command",
    [("scripts/run", "frobnicate"), ("hearth", "models", "list"), ("scripts/nonexistent",)],
    ids=shlex.join,
)
def test_a_command_that_does_not_exist_is_caught(command: tuple[str, ...], tmp_path: Path) -> None:
    assert problem(command, tmp_path) is not None
