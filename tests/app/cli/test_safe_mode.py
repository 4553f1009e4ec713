"""`hearth --no-plugins`: safe mode holds before any command is looked up, so a third-party
plugin's command and tools never load, while Hearth's own commands still work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth import safe_mode
from hearth.cli import main
from tests.app.test_plugins import install, site  # noqa: F401 (fixture)

WEATHER = '''
import click
from hearth import hookimpl


@click.command()
def weather() -> None:
    """The weather."""
    click.echo("sunny")


@hookimpl
def register_commands(register):
    register(weather)
'''


@pytest.fixture
def weather(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    install(
        site, "hearth-weather", {"weather": "sample_weather_cli"}, {"sample_weather_cli": WEATHER}
    )
    monkeypatch.setattr(main.cli, "_plugin_commands", None)  # commands are cached per group


def test_a_third_party_command_runs_without_safe_mode(weather: None) -> None:
    result = CliRunner().invoke(main.cli, ["weather"])
    assert result.exit_code == 0 and result.output == "sunny\n"
    assert not safe_mode()


def test_no_plugins_leaves_it_unloaded_and_says_why_nothing_is_there(
    weather: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEARTH_DISABLE_PLUGINS", "")  # restored after the test, like the flag
    result = CliRunner().invoke(main.cli, ["--no-plugins", "weather"])
    assert result.exit_code == 2 and "No such command 'weather'" in result.output
    assert safe_mode() and os.environ["HEARTH_DISABLE_PLUGINS"] == "1"
    assert "sample_weather_cli" not in __import__("sys").modules
