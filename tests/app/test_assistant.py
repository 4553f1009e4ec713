"""`Assistant.open` does the start-up work and says each step; `models` and `voice` hang off it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from hearth import Assistant, Connector, Models, StartupStep, Voice, hookimpl


class Counting(Connector):
    name = "counting"

    def __init__(self) -> None:
        super().__init__()
        self.starts = 0

    def start(self) -> None:
        self.starts += 1


class CountingPlugin:
    def __init__(self, connector: Connector) -> None:
        self.connector = connector

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(self.connector)


def test_open_says_each_step_before_it_runs_and_starts_the_connectors() -> None:
    steps: list[StartupStep] = []
    connector = Counting()
    assistant = Assistant.open(
        plugins=[CountingPlugin(connector)], entry_points=False, progress=steps.append
    )
    try:
        assert steps == [
            StartupStep.DATABASE,
            StartupStep.PLUGINS,
            StartupStep.RECOVERY,
            StartupStep.CONNECTORS,
        ]
        assert connector.starts == 1
        assert assistant.connectors() == [connector]
    finally:
        assistant.close()


def test_open_without_connectors_neither_starts_them_nor_says_it_does() -> None:
    steps: list[StartupStep] = []
    connector = Counting()
    assistant = Assistant.open(
        plugins=[CountingPlugin(connector)],
        entry_points=False,
        start_connectors=False,
        progress=steps.append,
    )
    try:
        assert StartupStep.CONNECTORS not in steps
        assert connector.starts == 0
    finally:
        assistant.close()


@pytest.mark.parametrize("window", [True, False])
def test_models_and_voice_are_one_each_per_assistant(window: bool) -> None:
    assistant = Assistant.open(entry_points=False, start_connectors=False, window=window)
    try:
        assert isinstance(assistant.models, Models)
        assert assistant.models is assistant.models
        assert isinstance(assistant.voice, Voice)
        assert assistant.voice is assistant.voice
        assert assistant.voice._window is window
    finally:
        assistant.close()


def test_opening_loads_neither_the_models_code_nor_voice() -> None:
    # The models code loads the hub client; a command that never touches a model file should
    # not pay for it. A fresh interpreter, since this one's other tests loaded both.
    code = """
import sys
from hearth import Assistant
assistant = Assistant.open(entry_points=False, start_connectors=False)
print(sorted(m for m in ("hearth.models.library", "hearth.voice.voice", "huggingface_hub")
             if m in sys.modules))
assistant.models
print("hearth.models.library" in sys.modules)
assistant.close()
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "True"]
