"""`hearth ask --threads N --stats` with the real test model: the count reaches llama.cpp and
the stats line gives the speed; `hearth chat` names the model as the window does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.ask_cmd import ask
from hearth.cli.chat import chat
from hearth.models.speed_history import SpeedHistory

pytestmark = [pytest.mark.model, pytest.mark.timeout(300)]


def test_ask_with_one_thread_prints_its_speed(test_gguf: Path) -> None:
    arguments = ["Count to twenty.", "--model", str(test_gguf), "--threads", "1", "--stats"]
    arguments += ["--no-think", "--max-tokens", "40"]
    result = CliRunner().invoke(ask, arguments)
    assert result.exit_code == 0, result.output
    # The stats line in a user's words: what the numbers are, no internal names or lists.
    (line,) = [line for line in result.output.splitlines() if "tokens/s" in line]
    assert re.fullmatch(
        r"1 model call · 0 tools offered · [\d,]+ prompt tokens read( · [\d,]+ reused)? · "
        r"[\d,]+ tokens? written at [\d.]+ tokens/s( · cut at the length limit)?",
        line,
    ), line
    speeds = SpeedHistory()._read()
    assert [key.rsplit("|", 1)[1] for key in speeds] == ["1"]  # remembered for one thread


def test_ask_refuses_zero_threads_before_loading_anything(test_gguf: Path) -> None:
    result = CliRunner().invoke(ask, ["Hi", "--model", str(test_gguf), "--threads", "0"])
    assert result.exit_code == 2 and "Loading" not in result.output


def test_chat_names_the_model_as_the_window_does(test_gguf: Path) -> None:
    result = CliRunner().invoke(chat, ["--model", str(test_gguf), "--no-think"], input="/quit\n")
    assert result.exit_code == 0, result.output
    # The catalog's name, as the window's model chip shows it, not the file's own metadata.
    assert "SmolLM2 135M Instruct ready." in result.output
    assert "Smollm2 135M 8k" not in result.output
