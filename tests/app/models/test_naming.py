"""The model's name as people see it: catalog name, cleaned file name, or the server's."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.generation import ModelInfo
from hearth.models.naming import clean_file_name, display_name


def info(source: str, name: str = "Smollm2 135M 8k Lc100K Mix1 Ep2") -> ModelInfo:
    return ModelInfo(name, source, "llama", "Q4_1", 4096, "chatml")


@pytest.mark.parametrize(
    ("file", "shown"),
    [
        ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2 135M Instruct"),
        ("BotPsy-0.8B.Q8_0.gguf", "BotPsy 0.8B"),
        ("qwen3.5-0.8b-q4_k_m.gguf", "qwen3.5 0.8b"),
        ("my_model-BF16.gguf", "my model"),
        ("plain.gguf", "plain"),
    ],
)
def test_a_file_name_is_cleaned_of_its_quant_and_separators(file: str, shown: str) -> None:
    assert clean_file_name(file) == shown


def test_a_catalog_file_shows_the_catalog_name(test_gguf: Path) -> None:
    assert display_name(info(str(test_gguf))) == "SmolLM2 135M Instruct"


def test_a_file_outside_the_catalog_shows_its_cleaned_name(tmp_path: Path) -> None:
    assert display_name(info(str(tmp_path / "Gemma-3-270M.Q4_K_M.gguf"))) == "Gemma 3 270M"


def test_a_remote_model_keeps_its_server_name() -> None:
    assert display_name(info("http://127.0.0.1:8080/v1", name="qwen3")) == "qwen3"
