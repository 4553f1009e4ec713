"""`Models`, the one object the window and the terminal use for models, on real files."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import MAX_THREADS, DownloadProgress, Models, ThreadPolicy
from hearth.errors import DownloadCancelled, ModelNotFoundError
from hearth.generation import ModelInfo
from hearth.models.catalog import load_catalog, parse_catalog
from hearth.paths import cache_dir
from tests.fixtures.fake_hub import FakeHub

REPO = "tests/Tiny-GGUF"
HUB_FILE = "tiny-q4_0.gguf"
HUB_CATALOG = f"""
[[model]]
id = "tiny-q4_0"
label = "Tiny, Q4_0"
repo = "{REPO}"
file = "{HUB_FILE}"
quant = "Q4_0"
size = 1_000_000
license = "mit"
default = true
"""


@pytest.fixture
def models() -> Models:
    """Models from a one-entry hub catalog, so no package's test model is listed."""
    return Models(parse_catalog(HUB_CATALOG))


def test_making_one_touches_no_disk(hearth_home: Path) -> None:
    Models()
    Models(parse_catalog(HUB_CATALOG))
    assert not hearth_home.exists()


def test_the_catalog_is_hearths_own_unless_one_is_given(models: Models) -> None:
    assert Models().catalog().ids == load_catalog().ids
    assert models.catalog().ids == ["tiny-q4_0"]


def test_an_imported_file_is_installed_listed_resolved_and_verified(
    models: Models, tiny_gguf: Path
) -> None:
    with pytest.raises(ModelNotFoundError):
        models.resolve()
    path, summary = models.import_and_verify(tiny_gguf)
    assert path == models.folder() / tiny_gguf.name
    assert summary.path == path and summary.architecture == "llama"
    assert [model.path for model in models.installed()] == [path]
    assert models.resolve() == path == models.resolve(str(path))
    assert [row.key for row in models.rows()] == ["tiny-q4_0", str(path)]
    assert models.verify(path).size == tiny_gguf.stat().st_size
    assert models.quantization(path) == "Q8_0"
    record = models.install_record(path)
    assert record is not None
    assert record.sha256 == hashlib.sha256(tiny_gguf.read_bytes()).hexdigest()
    assert models.install_record(tiny_gguf) is None


def test_the_first_check_hashes_a_recorded_file_once(models: Models, tiny_gguf: Path) -> None:
    path = models.import_file(tiny_gguf)
    assert models.inspect(path).name == "tiny"
    assert [models.check_once(path).hashed for _ in range(2)] == ["now", "before"]
    assert models.check_once(tiny_gguf).hashed == "no record"


def test_a_download_can_be_cancelled_then_installs_with_progress(
    models: Models, hub: FakeHub, tmp_path: Path, make_gguf: Callable[..., Path]
) -> None:
    data = make_gguf(tmp_path / "src.gguf", n_floats=256 * 1024).read_bytes()
    hub.add_file(REPO, HUB_FILE, data)
    entry = models.catalog().default
    stop = threading.Event()
    stop.set()
    with pytest.raises(DownloadCancelled):
        models.download(entry, cancel=stop)
    assert models.installed() == []

    reports: list[DownloadProgress] = []
    path = models.download(entry, progress=reports.append)
    assert path.read_bytes() == data
    assert reports[-1].fraction == 1.0
    assert [model.entry for model in models.installed()] == [entry]
    [row] = models.rows()
    assert row.path == path and not row.downloadable


def test_a_package_entry_is_shipped_by_its_package(test_gguf: Path) -> None:
    models = Models()
    catalog = models.catalog()
    assert models.shipped(catalog.get("smollm2-135m-test")) == test_gguf
    assert models.shipped(catalog.default) is None


def test_the_saved_threads_become_the_policy(models: Models) -> None:
    assert models.saved_threads() is None
    assert models.thread_policy() == ThreadPolicy.automatic()
    models.save_threads(3)
    assert Models().saved_threads() == 3
    assert models.thread_policy() == ThreadPolicy.fixed(3)
    assert models.thread_policy(override=2) == ThreadPolicy.fixed(2)
    models.save_threads(None)
    assert models.saved_threads() is None
    with pytest.raises(ValueError, match="between 1 and"):
        models.save_threads(MAX_THREADS + 1)
    assert models.apply_threads(None, ThreadPolicy.fixed(1)) is False


@pytest.mark.model
def test_the_test_model_loads_with_its_threads_and_catalog_name(test_gguf: Path) -> None:
    models = Models()
    [row] = [row for row in models.rows() if row.key == "smollm2-135m-test"]
    model = models.load_row(row)
    try:
        assert getattr(model, "threads", None) == ThreadPolicy.automatic()
        assert models.display_name(model.info) == "SmolLM2 135M Instruct"
    finally:
        model.close()
    model = models.load(test_gguf, 512, models.thread_policy(override=1))
    try:
        assert model.info.threads == 1
        assert models.apply_threads(model, ThreadPolicy.fixed(2))
        assert model.info.threads == 2
    finally:
        model.close()


def test_every_models_object_shares_this_computers_usual_speed() -> None:
    info = ModelInfo("tiny", "/models/tiny.gguf", "llama", "Q8_0", 2048, "chatml", threads=2)
    first = Models().speeds.check(info, tokens=100, seconds=1.0, others_cores=0.0)
    assert first is not None and first.usual is None
    later = Models().speeds.check(info, tokens=20, seconds=1.0, others_cores=0.0)
    assert later is not None and later.usual == 100 and later.slow


def test_the_prompt_cache_folder_is_in_the_cache_folder() -> None:
    assert Models().prompt_cache_folder().parent == cache_dir()
