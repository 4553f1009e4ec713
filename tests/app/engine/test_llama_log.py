"""llama.cpp's own log lines go through Python logging, never straight to the terminal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Runs in a child so llama.cpp's C logger writes to a real stderr file descriptor.
CHILD = """
import logging, sys
from hearth.engine.llama import LlamaCppModel
from hearth.generation import GenerationSettings, PromptProgress
from hearth.messages import CancelToken, Message

if sys.argv[2] == "debug":
    fmt = "via-logging %(name)s %(levelname)s: %(message)s"
    logging.basicConfig(level=logging.DEBUG, format=fmt)
model = LlamaCppModel(sys.argv[1], n_ctx=2048)
settings = GenerationSettings(temperature=0.0, max_tokens=4)
long_prompt = [Message.user("Summarise: " + "the quick brown fox jumps. " * 300)]
cancel = CancelToken()
for stopped in model.generate(long_prompt, (), settings, cancel):
    if isinstance(stopped, PromptProgress) and stopped.read > 0:
        cancel.cancel()  # the next batch's decode stops inside llama.cpp
assert stopped.stop_reason == "cancelled", stopped
list(model.generate([Message.user("Say hello.")], (), settings))
model.close()
print("finished")
"""
REMOVAL_LINE = "decode: removing memory module entries"


def _run_child(test_gguf: Path, mode: str) -> str:
    finished = subprocess.run(
        [sys.executable, "-c", CHILD, str(test_gguf), mode],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert finished.returncode == 0 and finished.stdout.strip() == "finished", finished.stderr
    return finished.stderr


@pytest.mark.model
def test_llama_cpp_says_nothing_on_the_terminal_after_a_stop(test_gguf: Path) -> None:
    stderr = _run_child(test_gguf, "quiet")
    assert REMOVAL_LINE not in stderr
    assert stderr == "", stderr


@pytest.mark.model
def test_with_debug_logging_llama_cpp_lines_arrive_through_python_logging(
    test_gguf: Path,
) -> None:
    stderr = _run_child(test_gguf, "debug")
    assert f"via-logging hearth.engine.llama_cpp DEBUG: {REMOVAL_LINE}" in stderr
    assert "via-logging hearth.engine.llama_cpp DEBUG: llama_decode: failed to decode" in stderr
