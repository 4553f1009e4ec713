"""`hearth plugins`: list, turn off and on, the folder, and the example plugin."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hearth.cli.main import cli
from hearth.paths import config_dir, plugins_dir
from tests.app.test_user_plugins import BARE_TOOLS, example_source, write_plugin
from tests.fixtures.spoofing import A_FEW, assert_safe, unstyled


@pytest.fixture
def user_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    yield
    for name in [name for name in sys.modules if name.startswith("hearth_user_plugins.")]:
        del sys.modules[name]


def hearth(*arguments: str) -> Result:
    return CliRunner().invoke(cli, ["plugins", *arguments], catch_exceptions=False)


def line_of(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(f"{name} "))


def test_folder_and_example(hearth_home: Path) -> None:
    done = hearth("folder")
    assert done.exit_code == 0
    assert done.output == f"{plugins_dir()}\n"
    assert plugins_dir().is_relative_to(hearth_home)
    example = hearth("example")
    assert example.exit_code == 0 and example.output == example_source()


def test_the_printed_example_loads_once_saved_in_the_folder(user_plugins: None) -> None:
    (plugins_dir() / "notes.py").write_text(hearth("example").output, encoding="utf-8")
    done = hearth()
    assert done.exit_code == 0, done.output
    assert line_of(done.output, "notes").split() == [
        "notes",
        "user",
        "loaded",
        "notes.list,",
        "notes.search,",
        "notes.read,",
        "notes.write",
    ]
    assert line_of(done.output, "files").split()[:3] == ["files", "built-in", "loaded"]
    assert f"Your plugin files go in {plugins_dir()}" in done.output


def test_a_failed_plugin_shows_its_error_and_with_verbose_its_traceback(
    user_plugins: None,
) -> None:
    write_plugin("broken.py", "import no_such_module_for_hearth\n")
    done = hearth("list")
    lines = done.output.splitlines()
    at = lines.index(line_of(done.output, "broken"))
    assert lines[at].split()[1:] == ["user", "failed", "-"]
    assert lines[at + 1].strip() == (
        "ModuleNotFoundError: No module named 'no_such_module_for_hearth'"
    )
    assert "Traceback" not in done.output
    verbose = hearth("list", "--verbose")
    assert "Traceback (most recent call last):" in verbose.output
    assert "import no_such_module_for_hearth" in verbose.output
    assert "Traceback (most recent call last):" in hearth("reload", "--verbose").output


def test_disable_and_enable_persist(user_plugins: None) -> None:
    write_plugin("weather.py", BARE_TOOLS)
    done = hearth("disable", "weather")
    assert done.exit_code == 0
    assert "hearth plugins enable weather" in done.output
    settings = config_dir() / "plugins.json"
    assert json.loads(settings.read_text(encoding="utf-8")) == {"disabled": ["weather"]}
    listed = hearth("list").output
    assert line_of(listed, "weather").split()[1:] == ["user", "disabled", "-"]
    assert hearth("disable", "files").exit_code == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == {"disabled": ["files", "weather"]}
    assert line_of(hearth().output, "files").split()[1:] == ["built-in", "disabled", "-"]
    assert hearth("enable", "weather").exit_code == 0
    assert hearth("enable", "files").exit_code == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == {"disabled": []}
    assert line_of(hearth().output, "weather").split()[1:4] == ["user", "loaded", "weather.today,"]


def test_disabling_never_imports_the_plugin(user_plugins: None, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    write_plugin("hang.py", f"open({str(ran)!r}, 'w').close()\n")
    assert hearth("disable", "hang").exit_code == 0
    assert not ran.exists()


def test_an_unknown_name_is_refused() -> None:
    done = CliRunner().invoke(cli, ["plugins", "disable", "nope"])
    assert done.exit_code == 1
    assert "There is no plugin called 'nope'" in done.output
    assert not (config_dir() / "plugins.json").exists()


def test_safe_mode_lists_user_files_as_disabled() -> None:
    write_plugin("weather.py", BARE_TOOLS)
    done = hearth("list")
    assert line_of(done.output, "weather").split()[1:] == ["user", "disabled", "-"]
    assert "safe mode (--no-plugins)" in done.output


@pytest.mark.parametrize("spoof", A_FEW)
def test_a_plugins_name_error_and_traceback_are_shown_escaped(
    user_plugins: None, spoof: str
) -> None:
    write_plugin(f"{spoof}.py", f"raise RuntimeError({spoof!r})\n")
    for arguments in (["list"], ["list", "--verbose"], ["reload", "--verbose"]):
        # color: click would strip a spoof's ESC sequences from what is not a terminal
        done = CliRunner().invoke(cli, ["plugins", *arguments], color=True)
        assert done.exit_code == 0, done.output
        assert_safe(unstyled(done.output), spoof, lines=True)
        assert f"RuntimeError: {spoof}" not in done.output
