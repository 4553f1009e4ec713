"""The `hearth` group: help without heavy imports, built-ins resolved lazily, `--verbose`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from hearth.cli.command_list import BUILTIN_COMMANDS
from hearth.cli.main import cli, main
from tests.fixtures.spoofing import A_FEW, assert_safe, unstyled

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


@pytest.mark.parametrize("spoof", A_FEW)
def test_an_error_naming_an_outside_file_is_shown_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoof: str
) -> None:
    junk = tmp_path / f"{spoof}.gguf"
    junk.write_bytes(b"junk" * 100)
    monkeypatch.setattr(sys, "argv", ["hearth", "models", "import", str(junk)])
    # color: click would strip a spoof's ESC sequences from what is not a terminal
    with CliRunner().isolation(color=True) as (_out, err, _), pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 1
    said = err.getvalue().decode()
    assert "not a GGUF file" in said
    assert_safe(unstyled(said), spoof, lines=True)
