"""The `hearth` group: help without heavy imports, built-ins resolved lazily, `--verbose`."""

from __future__ import annotations

import os
import subprocess
import sys

import click
import pytest

from hearth.cli.main import BUILTIN_COMMANDS, cli

HEAVY = ("llama_cpp", "PySide6", "huggingface_hub")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_loads_neither_the_engine_nor_qt_nor_the_hub() -> None:
    code = f"""
import sys
from hearth.cli.main import cli
try:
    cli.main(["--help"])
except SystemExit as exit:
    assert exit.code == 0, exit.code
print(sorted(name for name in {HEAVY!r} if name in sys.modules))
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert "Commands:" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_help_lists_every_builtin_with_its_own_short_help() -> None:
    ctx = click.Context(cli)
    for name, (_target, short_help) in BUILTIN_COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None, name
        assert command.get_short_help_str(limit=200) == short_help, name
    assert set(BUILTIN_COMMANDS) <= set(cli.list_commands(ctx))


@pytest.mark.parametrize("verbose", [True, False])
def test_verbose_shows_hearth_debug_logs_and_only_then(verbose: bool) -> None:
    flags = ["--verbose"] if verbose else []
    code = f"""
import logging
from hearth.cli.main import cli
try:
    cli.main({[*flags, "models", "threads"]!r})
except SystemExit as exit:
    assert not exit.code, exit.code
logging.getLogger("hearth.engine.llama_cpp").debug("llama.cpp says hello")
logging.getLogger("hearth.models").info("hearth says hello")
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    shown = "llama.cpp says hello" in done.stderr and "hearth says hello" in done.stderr
    assert shown is verbose, done.stderr
