"""Chat fixtures: the real main window over a real core, with a scripted or a pausing model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.agent.scripted import Reply, ScriptedModel
from tests.app.voice.voice_fixtures import pulse_microphone  # noqa: F401 - a fixture
from tests.ui.chat.kit import Desk, Harness, make_assistant, open_window


@pytest.fixture
def desk() -> Desk:
    return Desk()


@pytest.fixture
def script() -> list[Reply]:
    """The scripted model's replies; a test appends them before it sends."""
    return []


@pytest.fixture
def harness(qtbot: Any, desk: Desk, script: list[Reply]) -> Iterator[Harness]:
    assistant = make_assistant(ScriptedModel(script), desk)
    try:
        yield from open_window(qtbot, assistant, desk)
    finally:
        assistant.close()
