"""The thread setting: automatic unless the user saved a count or passed --threads."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.models_cmd import models
from hearth.engine.threads import ThreadPolicy
from hearth.models.threads_setting import SETTING_FILE, save_threads, saved_threads, thread_policy


def test_automatic_until_a_count_is_saved() -> None:
    assert saved_threads() is None
    assert thread_policy() == ThreadPolicy.automatic()
    save_threads(3)
    assert thread_policy() == ThreadPolicy.fixed(3)
    assert thread_policy(override=1) == ThreadPolicy.fixed(1)
    save_threads(None)
    assert thread_policy() == ThreadPolicy.automatic()
    with pytest.raises(ValueError):
        save_threads(0)


@pytest.mark.parametrize("text", ["{broken", '{"threads": -2}', '{"threads": "many"}', "[1]"])
def test_a_bad_setting_file_means_automatic(hearth_home: Path, text: str) -> None:
    (hearth_home / "config").mkdir(parents=True, exist_ok=True)
    (hearth_home / "config" / SETTING_FILE).write_text(text)
    assert saved_threads() is None
    assert thread_policy() == ThreadPolicy.automatic()


def test_hearth_models_threads_shows_and_saves_the_setting() -> None:
    runner = CliRunner()
    shown = runner.invoke(models, ["threads"])
    assert shown.exit_code == 0 and shown.output.startswith("Automatic: up to")
    saved = runner.invoke(models, ["threads", "2"])
    assert saved.exit_code == 0 and "Exactly 2 threads" in saved.output
    assert saved_threads() == 2
    refused = runner.invoke(models, ["threads", "lots"])
    assert refused.exit_code == 2 and "a number from 1 to 256, or auto" in refused.output
    assert saved_threads() == 2
    assert runner.invoke(models, ["threads", "auto"]).exit_code == 0
    assert saved_threads() is None
