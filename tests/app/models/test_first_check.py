"""A recorded model is hashed on its first load, then trusted by its stamp until it changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hearth.errors import ChecksumMismatch, ModelFileError
from hearth.models import load_chat_model
from hearth.models.first_check import check_once
from hearth.models.lookup import Sidecar, sha256_file, write_sidecar


@pytest.fixture
def recorded(test_gguf: Path, tmp_path: Path) -> Path:
    copy = tmp_path / test_gguf.name
    shutil.copyfile(test_gguf, copy)
    write_sidecar(copy, Sidecar(None, None, copy.name, sha256_file(copy), copy.stat().st_size))
    return copy


def test_the_first_check_hashes_and_later_ones_trust_the_stamp(recorded: Path) -> None:
    assert check_once(recorded).hashed == "now"
    assert check_once(recorded).hashed == "before"


def test_a_changed_byte_is_caught_even_after_a_stamp(recorded: Path) -> None:
    check_once(recorded)
    data = bytearray(recorded.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size; the mtime moves, so the stamp no longer vouches
    recorded.write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatch, match="does not match the sha256"):
        check_once(recorded)


def test_loading_a_truncated_recorded_model_fails_before_llama_cpp(recorded: Path) -> None:
    with recorded.open("r+b") as handle:
        handle.truncate(recorded.stat().st_size // 2)
    with pytest.raises(ModelFileError, match="truncated or damaged"):
        load_chat_model(recorded)


def test_a_file_without_a_record_is_left_to_the_gguf_check(test_gguf: Path) -> None:
    assert check_once(test_gguf).hashed == "no record"
