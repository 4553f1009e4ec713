"""`hearth ask --threads N --stats` with the real test model: the count reaches llama.cpp and
the stats line gives the speed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.ask_cmd import ask
from hearth.models.speed_history import SpeedHistory

pytestmark = [pytest.mark.model, pytest.mark.timeout(300)]


def test_ask_with_one_thread_prints_its_speed(test_gguf: Path) -> None:
    arguments = ["Count to twenty.", "--model", str(test_gguf), "--threads", "1", "--stats"]
    arguments += ["--no-think", "--max-tokens", "40"]
    result = CliRunner().invoke(ask, arguments)
    assert result.exit_code == 0, result.output
    assert "tokens/s]" in result.output
    speeds = SpeedHistory()._read()
    assert [key.rsplit("|", 1)[1] for key in speeds] == ["1"]  # remembered for one thread


def test_ask_refuses_zero_threads_before_loading_anything(test_gguf: Path) -> None:
    result = CliRunner().invoke(ask, ["Hi", "--model", str(test_gguf), "--threads", "0"])
    assert result.exit_code == 2 and "Loading" not in result.output
