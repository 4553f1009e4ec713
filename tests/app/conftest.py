"""Fixtures the core's front-end tests share: a Documents folder granted to the real files
connector, and a microphone (a real PulseAudio server) for the voice tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.connectors.files import FileLibrary, FilesConnector
from tests.app.voice.voice_fixtures import pulse_microphone  # noqa: F401 - a fixture


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "Documents"
    folder.mkdir()
    (folder / "budget.txt").write_text("Remember the quarterly budget review on Friday.\n")
    return folder


@pytest.fixture
def files(documents: Path) -> Iterator[FilesConnector]:
    connector = FilesConnector(FileLibrary(poll_seconds=0.5))
    connector.grant(documents)
    yield connector
    connector.close()
