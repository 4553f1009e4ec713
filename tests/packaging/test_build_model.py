"""The model step of packaging/build.py: only a whole, verified model goes into a bundle."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.cli.selftest import check_model
from hearth.models import load_catalog
from tests.app.models.conftest import write_gguf
from tests.fixtures.fake_hub import FakeHub

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

from bundle_model import BuildError, bundle_model, find_model  # noqa: E402

ENTRY = "botpsy-0.8b-q4_k_m"


def run_build(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), *arguments, "--out", "unused"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_truncated_local_model_fails_the_build_in_one_sentence(tmp_path: Path) -> None:
    whole = write_gguf(tmp_path / "whole.gguf")
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(whole.read_bytes()[: whole.stat().st_size - 1000])
    done = run_build("--model", str(truncated))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("build failed: "), done.stderr
    assert "truncated" in lines[0]


def test_a_missing_model_fails_the_build(tmp_path: Path) -> None:
    done = run_build("--model", str(tmp_path / "nowhere.gguf"))
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        == f"build failed: The model file {tmp_path / 'nowhere.gguf'} does not exist."
    )


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


def test_a_catalog_model_is_downloaded_verified_and_recorded(hub: FakeHub, tmp_path: Path) -> None:
    data = write_gguf(tmp_path / "source.gguf").read_bytes()
    entry = load_catalog().get(ENTRY)
    served = hub.add_file(entry.repos[0], "botpsy-0.8b-q4_k_m.gguf", data)
    source = find_model(ENTRY)
    assert source.record.sha256 == served.sha256 and source.record.size == len(data)
    assert source.license == entry.license
    bundled = bundle_model(source, tmp_path / "bundle" / "models")
    assert bundled.read_bytes() == data
    assert check_model(bundled, strict=True) == {
        "size": len(data),
        "sha256": served.sha256,
        "sha256_ok": True,
        "hashed": "now",
    }


def test_a_download_that_does_not_match_its_hash_fails_the_build(
    hub: FakeHub, tmp_path: Path
) -> None:
    data = write_gguf(tmp_path / "source.gguf").read_bytes()
    served = hub.add_file(load_catalog().get(ENTRY).repos[0], "botpsy-0.8b-q4_k_m.gguf", data)
    served.corrupt = True
    with pytest.raises(BuildError, match=f"Downloading '{ENTRY}' failed: .*sha256"):
        find_model(ENTRY)
