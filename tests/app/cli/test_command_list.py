"""`hearth --help` names every command, plugins' too, without importing any plugin; running a
plugin's command loads that one plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from hearth import ToolRegistry, load_plugins, set_plugin_disabled
from hearth.cli import main
from hearth.cli.command_list import BUILTIN_COMMANDS, OWN_PLUGIN_COMMANDS
from tests.app.test_plugins import install, site  # noqa: F401 (fixture)

WEATHER = '''
import click
from hearth import hookimpl


@click.command()
def weather() -> None:
    """The weather, today and tomorrow."""


@hookimpl
def register_commands(register):
    register(weather)
'''


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=os.environ.copy(), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> click.Group:
    """The `hearth` group with nothing of its plugins' loaded yet, as a new process has it."""
    monkeypatch.setattr(main.cli, "_plugin_commands", None)
    return main.cli


def test_the_written_help_of_our_plugins_commands_is_their_own() -> None:
    report = load_plugins(ToolRegistry())
    made = {
        command.name: (plugin, command)
        for plugin, parts in report.parts.items()
        for command in parts.commands
    }
    assert set(made) == set(OWN_PLUGIN_COMMANDS), "a command of our plugins is missing here"
    for name, (plugin, command) in made.items():
        written_plugin, written = OWN_PLUGIN_COMMANDS[name]
        assert written_plugin == plugin, name
        for limit in range(20, 130):
            stand_in = click.Command(name, help=written)
            assert stand_in.get_short_help_str(limit) == command.get_short_help_str(limit), name
    assert not set(OWN_PLUGIN_COMMANDS) & set(BUILTIN_COMMANDS)


def test_help_reads_the_same_as_with_every_command_loaded(fresh: click.Group) -> None:
    listed = CliRunner().invoke(fresh, ["--help"], terminal_width=100)
    assert listed.exit_code == 0, listed.output
    context = click.Context(fresh)
    for name in fresh.list_commands(context):
        assert fresh.get_command(context, name) is not None, name
    loaded = CliRunner().invoke(fresh, ["--help"], terminal_width=100)
    assert listed.output == loaded.output
    for name in (*BUILTIN_COMMANDS, *OWN_PLUGIN_COMMANDS):
        assert f"\n  {name} " in listed.output, name


def test_help_imports_no_plugin_and_no_tool_machinery() -> None:
    code = """
import sys
from hearth.cli.main import cli
try:
    cli.main(["--help"])
except SystemExit as exit:
    assert exit.code == 0, exit.code
print(sorted(m for m in sys.modules if m.startswith(("hearth.connectors", "hearth.tools",
    "hearth.plugins.loading", "pydantic", "jsonschema", "keyring"))))
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert "eval " in done.stdout and "files " in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_plugins_command_loads_that_plugin_alone() -> None:
    code = """
import sys
from hearth.cli.main import cli
try:
    cli.main(["files", "--help"])
except SystemExit as exit:
    assert exit.code == 0, exit.code
print(sorted({m.split(".")[2] for m in sys.modules if m.startswith("hearth.connectors.")}))
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert "Folders Hearth may see" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "['files']"


def test_a_plugin_turned_off_adds_no_command(fresh: click.Group) -> None:
    set_plugin_disabled("calendar", True)
    listed = CliRunner().invoke(fresh, ["--help"])
    assert "calendar" not in listed.output and "files" in listed.output
    ran = CliRunner().invoke(fresh, ["calendar", "list"])
    assert ran.exit_code == 2 and "No such command 'calendar'" in ran.output


def test_a_third_party_plugins_command_is_listed_with_its_help(
    site: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    fresh: click.Group,
) -> None:
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    install(
        site, "hearth-weather", {"weather": "sample_weather_list"}, {"sample_weather_list": WEATHER}
    )
    listed = CliRunner().invoke(fresh, ["--help"], terminal_width=100)
    assert listed.exit_code == 0, listed.output
    assert "  weather    The weather, today and tomorrow." in listed.output
    assert "  files      Folders Hearth may see, and their search index." in listed.output
