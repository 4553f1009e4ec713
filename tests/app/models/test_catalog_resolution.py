"""Candidate repos, -imat matching, the fallback sentence and pinned hashes, against a local hub."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.models_cmd import models
from hearth.errors import ChecksumMismatch
from hearth.models.catalog import Catalog, load_catalog, parse_catalog
from hearth.models.download import download_model
from hearth.models.hub import ModelUnavailable, resolve_remote_file
from hearth.models.lookup import installed_models
from tests.fixtures.fake_hub import COMMIT, FakeHub

FIRST, SECOND, OLD = "qvac/BotPsy-0.8B-GGUF", "qvac/BotPsy-0.8B-GGUFs", "BotPsy/BotPsy-0.8B-GGUF"


@pytest.fixture
def gguf_bytes(tmp_path: Path, make_gguf: Callable[..., Path]) -> bytes:
    return make_gguf(tmp_path / "a.gguf", name="a").read_bytes()


@pytest.fixture
def other_bytes(tmp_path: Path, make_gguf: Callable[..., Path]) -> bytes:
    return make_gguf(tmp_path / "b.gguf", name="b").read_bytes()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pinned_catalog(data: bytes) -> Catalog:
    """A catalog whose only hub entry pins `data` the way models.toml pins Qwen3.5."""
    return parse_catalog(f"""
[[model]]
id = "pinned-q4"
label = "Pinned Q4"
repo = "unsloth/Pinned-GGUF"
revision = "{COMMIT}"
file = "Pinned-Q4_K_M.gguf"
quant = "Q4_K_M"
size = {len(data)}
sha256 = "{_sha(data)}"
license = "apache-2.0"
default = true
""")


def test_the_first_missing_candidate_is_skipped_for_the_second(
    hub: FakeHub, gguf_bytes: bytes, models_dir: Path
) -> None:
    hub.add_file(SECOND, "botpsy-0.8b-q4_k_m.gguf", gguf_bytes)
    hub.add_file(OLD, "botpsy-0.8b-q4_k_m.gguf", b"never looked at")
    entry = load_catalog().get("botpsy-0.8b-q4_k_m")
    assert resolve_remote_file(entry).repo == SECOND

    path = download_model(entry)
    assert path.read_bytes() == gguf_bytes
    assert json.loads((models_dir / f"{path.name}.json").read_text())["repo"] == SECOND
    asked = [r.path for r in hub.requests if r.path.startswith("/api/models/")]
    assert [p.split("/")[4] for p in asked[:2]] == ["BotPsy-0.8B-GGUF", "BotPsy-0.8B-GGUFs"]
    assert all(OLD not in p for p in asked)
    user = [m for m in installed_models() if m.source == "user"]
    assert [m.entry.id for m in user if m.entry] == ["botpsy-0.8b-q4_k_m"]


def test_no_candidate_gives_one_sentence_offering_the_fallback(hub: FakeHub) -> None:
    entry = load_catalog().get("botpsy-0.8b-q4_k_m")
    with pytest.raises(ModelUnavailable) as caught:
        resolve_remote_file(entry)
    message = str(caught.value)
    assert message == (
        f"No repository for botpsy-0.8b-q4_k_m exists on {hub.url} (tried {FIRST}, {SECOND},"
        f" {OLD}), so download the fallback model qwen3.5-0.8b-q4_k_m instead."
    )
    assert message.count(". ") == 0 and message.endswith(".")
    assert caught.value.fallback == "qwen3.5-0.8b-q4_k_m"


def test_cli_download_prints_the_sentence_and_fails(hub: FakeHub, models_dir: Path) -> None:
    result = CliRunner().invoke(models, ["download", "botpsy-0.8b-q4_k_m"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.strip().startswith("No repository for botpsy-0.8b-q4_k_m exists")
    assert "download the fallback model qwen3.5-0.8b-q4_k_m instead." in result.stderr
    assert not list(models_dir.iterdir())


def test_imat_and_plain_names_both_match_and_imat_wins(hub: FakeHub, gguf_bytes: bytes) -> None:
    entry = load_catalog().get("botpsy-0.8b-q4_k_m")
    glob = entry.model_copy(update={"file": "botpsy-0.8b-q4_k_m*.gguf"})
    for candidate in (entry, glob):
        assert candidate.matches("botpsy-0.8b-q4_k_m-imat.gguf")
        assert candidate.matches("BotPsy-0.8B-Q4_K_M.gguf")
        assert not candidate.matches("botpsy-0.8b-q8_0-imat.gguf")
    hub.add_file(FIRST, "botpsy-0.8b-q4_k_m.gguf", b"plain")
    assert resolve_remote_file(entry).filename == "botpsy-0.8b-q4_k_m.gguf"
    hub.add_file(FIRST, "botpsy-0.8b-q4_k_m-imat.gguf", gguf_bytes)
    hub.add_file(FIRST, "botpsy-0.8b-q8_0.gguf", b"other quant")
    assert resolve_remote_file(entry).filename == "botpsy-0.8b-q4_k_m-imat.gguf"
    assert resolve_remote_file(glob).filename == "botpsy-0.8b-q4_k_m-imat.gguf"


def test_installed_imat_file_is_recognised(models_dir: Path, gguf_bytes: bytes) -> None:
    (models_dir / "botpsy-0.8b-q4_k_m-imat.gguf").write_bytes(gguf_bytes)
    (models_dir / "botpsy-0.8b-q4_k_m-imat.gguf.json").write_text(
        json.dumps(
            {"repo": SECOND, "revision": COMMIT, "filename": "botpsy-0.8b-q4_k_m-imat.gguf",
             "sha256": _sha(gguf_bytes), "size": len(gguf_bytes)}
        )
    )  # fmt: skip
    (found,) = [m for m in installed_models() if m.source == "user"]
    assert found.entry is not None and found.entry.id == "botpsy-0.8b-q4_k_m"


def test_hub_file_other_than_the_pin_is_refused_and_nothing_installed(
    hub: FakeHub, gguf_bytes: bytes, other_bytes: bytes, models_dir: Path
) -> None:
    hub.add_file("unsloth/Pinned-GGUF", "Pinned-Q4_K_M.gguf", other_bytes)  # its own LFS hash
    entry = pinned_catalog(gguf_bytes).get("pinned-q4")
    with pytest.raises(ChecksumMismatch) as caught:
        download_model(entry)
    message = str(caught.value)
    assert _sha(other_bytes) in message and _sha(gguf_bytes) in message
    assert "pinned in the catalog" in message
    assert hub.file_gets() == []
    assert not list(models_dir.iterdir())


def test_pinned_entry_downloads_when_the_bytes_match(
    hub: FakeHub, gguf_bytes: bytes, models_dir: Path
) -> None:
    hub.add_file("unsloth/Pinned-GGUF", "Pinned-Q4_K_M.gguf", gguf_bytes)
    entry = pinned_catalog(gguf_bytes).get("pinned-q4")
    path = download_model(entry)
    assert path == models_dir / "Pinned-Q4_K_M.gguf" and path.read_bytes() == gguf_bytes
    assert hub.file_gets()[0].path == f"/unsloth/Pinned-GGUF/resolve/{COMMIT}/Pinned-Q4_K_M.gguf"
    assert json.loads((models_dir / "Pinned-Q4_K_M.gguf.json").read_text())["sha256"] == _sha(
        gguf_bytes
    )


def test_served_bytes_that_miss_the_pin_are_deleted(
    hub: FakeHub, gguf_bytes: bytes, models_dir: Path
) -> None:
    hub.add_file("unsloth/Pinned-GGUF", "Pinned-Q4_K_M.gguf", gguf_bytes).corrupt = True
    entry = pinned_catalog(gguf_bytes).get("pinned-q4")
    with pytest.raises(ChecksumMismatch, match=re.escape(f"not the {_sha(gguf_bytes)} pinned")):
        download_model(entry)
    assert not list(models_dir.iterdir())


def test_the_bundled_qwen_fallbacks_are_pinned() -> None:
    catalog = load_catalog()
    q4, q8 = catalog.get("qwen3.5-0.8b-q4_k_m"), catalog.get("qwen3.5-0.8b-q8_0")
    for entry in (q4, q8):
        assert entry.repos == ("unsloth/Qwen3.5-0.8B-GGUF",)
        assert entry.revision == "6ab461498e2023f6e3c1baea90a8f0fe38ab64d0"
    assert (q4.file, q4.size) == ("Qwen3.5-0.8B-Q4_K_M.gguf", 532_517_120)
    assert q4.sha256 == "bd258782e35f7f458f8aced1adc053e6e92e89bc735ba3be89d38a06121dc517"
    assert (q8.file, q8.size) == ("Qwen3.5-0.8B-Q8_0.gguf", 811_843_840)
    assert q8.sha256 == "0ad885ffd4bb022fc4f0d33a3308fa108ef8613159d3b3a67e23abca056b7a6c"
    botpsy = [entry for entry in catalog if entry.id.startswith("botpsy")]
    assert all(entry.repos == (FIRST, SECOND, OLD) and entry.fallback for entry in botpsy)
    assert all("Qwen/" not in repo for entry in catalog for repo in entry.repos)
