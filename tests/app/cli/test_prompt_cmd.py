"""`hearth models prompt`: the tools' budget and the prefix cache, shown, set and cleared."""

from __future__ import annotations

import json

from click.testing import CliRunner

from hearth.agent import AgentConfig
from hearth.cli.main import cli
from hearth.models.prompt_setting import prefix_folder, prefix_states
from hearth.paths import config_dir


def run(*arguments: str) -> str:
    result = CliRunner().invoke(cli, ["models", "prompt", *arguments])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_settings_are_shown_set_and_used() -> None:
    assert "4500 tokens" in run() and "1024 MB" in run()
    out = run("--tool-budget", "6000", "--cache-size", "256")
    assert "6000 tokens" in out and "of 256 MB" in out
    assert AgentConfig().tool_budget == 6000
    states = prefix_states()
    assert states is not None and states.disk_bytes == 256 * 2**20
    assert "off" in run("--cache-size", "0") and prefix_states() is None


def test_clear_deletes_the_kept_states_only() -> None:
    folder = prefix_folder()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.state").write_bytes(bytes(2**20))
    (folder / "notes.txt").write_text("mine")
    assert "1 kept, 1 MB" in run()
    assert "0 kept" in run("--clear")
    assert (folder / "notes.txt").exists()


def test_a_bad_value_is_refused_and_nothing_is_saved() -> None:
    result = CliRunner().invoke(cli, ["models", "prompt", "--tool-budget", "-5"])
    assert result.exit_code == 2 and "-5" in result.output
    assert not (config_dir() / "engine.json").exists()


def test_a_hand_edited_bad_value_falls_back_to_the_default_and_keeps_the_rest() -> None:
    path = config_dir() / "engine.json"
    path.write_text(json.dumps({"threads": 2, "tool_prompt_tokens": "lots"}))
    assert AgentConfig().tool_budget == 4500
    run("--cache-size", "100")
    saved = json.loads(path.read_text())
    assert saved["threads"] == 2 and saved["prefix_cache_mb"] == 100
