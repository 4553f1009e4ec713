from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import paths
from hearth.engine import gguf_header
from hearth.engine.gguf_check import inspect_gguf
from hearth.errors import ModelFileError

MakeGGUF = Callable[..., Path]


@pytest.mark.model
def test_real_smollm2_summary(smollm2_path: Path) -> None:
    summary = inspect_gguf(smollm2_path)
    assert summary.architecture == "llama"
    assert summary.quantization == "Q4_1"
    assert summary.context_length == 8192
    assert summary.chat_template is not None and "<|im_start|>" in summary.chat_template
    assert (summary.bos_token, summary.eos_token) == ("<|im_start|>", "<|im_end|>")
    assert summary.vocab_size == 49152
    assert summary.tensor_count == 272
    assert summary.size == smollm2_path.stat().st_size


def test_small_valid_gguf_summary(tiny_gguf: Path) -> None:
    summary = inspect_gguf(tiny_gguf)
    assert summary.path == tiny_gguf
    assert summary.architecture == "llama"
    assert summary.name == "tiny"
    assert summary.quantization == "Q8_0"
    assert summary.context_length == 2048
    assert summary.chat_template is not None and "im_start" in summary.chat_template
    assert (summary.bos_token, summary.eos_token) == ("<|im_start|>", "<|im_end|>")
    assert summary.sampling == pytest.approx({"temp": 0.7, "top_k": 20.0})
    assert summary.tensor_count == 2
    assert summary.version == 3


def _reason(path: Path) -> str:
    with pytest.raises(ModelFileError) as caught:
        inspect_gguf(path)
    assert caught.value.path == path
    assert str(path) in str(caught.value)
    return caught.value.reason


def test_truncated_file_is_reported_as_truncated(tiny_gguf: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.gguf"
    data = tiny_gguf.read_bytes()
    cut.write_bytes(data[: len(data) - 1000])
    assert "truncated" in _reason(cut)


def test_file_cut_inside_the_metadata_is_reported_as_corrupt(
    tiny_gguf: Path, tmp_path: Path
) -> None:
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf.read_bytes()[:60])
    assert "corrupt" in _reason(cut)


def test_random_bytes_are_not_a_gguf(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"\x00\x01 this is not a model file " * 128)
    assert "not a GGUF file" in _reason(junk)


def test_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.gguf"
    empty.touch()
    assert _reason(empty) == "file is empty"


def test_too_small_file(tmp_path: Path) -> None:
    small = tmp_path / "small.gguf"
    small.write_bytes(b"GGUF\x03\x00")
    assert "too small" in _reason(small)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert _reason(tmp_path / "absent.gguf") == "file not found"
    assert "is a directory" in _reason(tmp_path)


def test_unsupported_version(tiny_gguf: Path, tmp_path: Path) -> None:
    future = tmp_path / "future.gguf"
    future.write_bytes(b"GGUF" + struct.pack("<I", 9) + tiny_gguf.read_bytes()[8:])
    assert "GGUF version 9 is not supported" in _reason(future)


def test_old_ggml_format(tmp_path: Path) -> None:
    old = tmp_path / "old.bin"
    old.write_bytes(b"tjgg" + b"\x00" * 100)
    assert "old GGML" in _reason(old)


def test_unknown_architecture(tmp_path: Path, make_gguf: MakeGGUF) -> None:
    path = make_gguf(tmp_path / "alien.gguf", arch="alienformer9000")
    assert "architecture 'alienformer9000' is not supported" in _reason(path)


def test_no_vocabulary(tmp_path: Path, make_gguf: MakeGGUF) -> None:
    path = make_gguf(tmp_path / "novocab.gguf", tokens=None)
    assert "no vocabulary" in _reason(path)


def test_garbled_metadata_is_reported_not_raised_raw(tiny_gguf: Path, tmp_path: Path) -> None:
    garbled = tmp_path / "garbled.gguf"
    data = bytearray(tiny_gguf.read_bytes())
    data[24:32] = struct.pack("<Q", 2**62)  # The first key's length: absurdly long.
    garbled.write_bytes(bytes(data))
    assert "corrupt" in _reason(garbled)


@pytest.mark.timeout(10)
def test_absurd_array_length_fails_fast_instead_of_hanging(tmp_path: Path) -> None:
    key = b"general.x"
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
    array_of_2_to_the_40_uint32 = struct.pack("<IIQ", 9, 4, 2**40)
    path = tmp_path / "endless.gguf"
    path.write_bytes(header + array_of_2_to_the_40_uint32 + bytes(16))
    assert "runs past the end of the file" in _reason(path)


_INTERNALS = ("numpy", "memmap", "dtype", "ValueType", "QuantizationType", "codec", "valid ")


def _first_key_at(data: bytes) -> tuple[int, int]:
    """Where the first metadata key's bytes start and end (after the 24-byte header)."""
    (length,) = struct.unpack_from("<Q", data, 24)
    return 32, 32 + length


def _damage_value_type(data: bytearray) -> None:
    _, end = _first_key_at(data)
    data[end : end + 4] = struct.pack("<I", 200)


def _damage_key_text(data: bytearray) -> None:
    start, _ = _first_key_at(data)
    data[start] = 0xFF


def _damage_tensor_type(data: bytearray) -> None:
    name = b"output_norm.weight"
    type_at = data.index(name) + len(name) + 4 + 8  # after n_dims (u32) and one dim (u64)
    data[type_at : type_at + 4] = struct.pack("<I", 999)


def _damage_tensor_dims(data: bytearray) -> None:
    name = b"output_norm.weight"
    n_dims_at = data.index(name) + len(name)
    data[n_dims_at : n_dims_at + 4] = struct.pack("<I", 7)


def _damage_tensor_count(data: bytearray) -> None:
    data[8:16] = struct.pack("<Q", 2**40)


@pytest.mark.parametrize(
    "damage",
    [
        _damage_value_type,
        _damage_key_text,
        _damage_tensor_type,
        _damage_tensor_dims,
        _damage_tensor_count,
    ],
)
def test_a_damaged_file_gets_one_clear_line_without_library_internals(
    damage: Callable[[bytearray], None], tiny_gguf: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged.gguf"
    data = bytearray(tiny_gguf.read_bytes())
    damage(data)
    damaged.write_bytes(bytes(data))
    reason = _reason(damaged)
    assert "\n" not in reason
    assert "corrupt" in reason and reason.endswith("download or import it again")
    assert not [word for word in _INTERNALS if word in reason], reason


def test_a_truncated_file_says_what_to_do(tiny_gguf: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf.read_bytes()[:-1000])
    assert _reason(cut).endswith("download or import it again")


def test_a_verified_file_is_remembered_by_path_size_mtime_and_inode(tiny_gguf: Path) -> None:
    inspect_gguf(tiny_gguf)
    stat = tiny_gguf.stat()
    memory = json.loads((paths.data_dir() / "verified-models.json").read_text())
    entry = memory["files"][str(tiny_gguf.resolve())]
    assert (entry["size"], entry["mtime_ns"], entry["inode"]) == (
        stat.st_size,
        stat.st_mtime_ns,
        stat.st_ino,
    )
    assert inspect_gguf(tiny_gguf) == inspect_gguf(str(tiny_gguf)) == _summary_of(tiny_gguf)


def _summary_of(path: Path) -> object:
    (paths.data_dir() / "verified-models.json").unlink()
    return inspect_gguf(path)


def _bump_mtime(path: Path, stat: os.stat_result) -> None:
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_a_verified_file_rewritten_with_the_same_size_is_checked_again(
    tiny_gguf: Path,
) -> None:
    inspect_gguf(tiny_gguf)
    stat = tiny_gguf.stat()
    data = bytearray(tiny_gguf.read_bytes())
    _damage_tensor_type(data)
    tiny_gguf.write_bytes(bytes(data))
    _bump_mtime(tiny_gguf, stat)
    assert tiny_gguf.stat().st_size == stat.st_size
    assert "corrupt" in _reason(tiny_gguf)


def test_a_verified_file_truncated_in_place_is_checked_again(tiny_gguf: Path) -> None:
    inspect_gguf(tiny_gguf)
    stat = tiny_gguf.stat()
    with tiny_gguf.open("r+b") as handle:
        handle.truncate(stat.st_size - 1000)
    _bump_mtime(tiny_gguf, stat)
    assert "truncated" in _reason(tiny_gguf)


def test_a_verified_file_replaced_by_another_is_checked_again(
    tiny_gguf: Path, tmp_path: Path
) -> None:
    inspect_gguf(tiny_gguf)
    stat = tiny_gguf.stat()
    replacement = tmp_path / "replacement.gguf"
    data = bytearray(tiny_gguf.read_bytes())
    _damage_value_type(data)
    replacement.write_bytes(bytes(data))
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # only the inode differs
    replacement.replace(tiny_gguf)
    assert "corrupt" in _reason(tiny_gguf)


def test_an_unreadable_memory_only_means_checking_again(tiny_gguf: Path) -> None:
    (paths.data_dir() / "verified-models.json").write_text("{not json")
    assert inspect_gguf(tiny_gguf).architecture == "llama"
    assert inspect_gguf(tiny_gguf).architecture == "llama"


def test_metadata_longer_than_the_first_read_is_read_in_full(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gguf_header, "_FIRST_READ", 40)  # inside the first key
    summary = inspect_gguf(tiny_gguf)
    assert (summary.architecture, summary.eos_token, summary.tensor_count) == (
        "llama",
        "<|im_end|>",
        2,
    )
