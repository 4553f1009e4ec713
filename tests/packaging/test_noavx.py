"""The no-AVX fallback's guard: libraries that use AVX registers are refused.

Compiling the fallback takes minutes, so it is not done here; the guard is tried on the venv's
own llama.cpp, an AVX2 build, which it must refuse.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import require

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packaging"))

from bundle_model import BuildError
from noavx import check_no_avx


def test_the_avx2_baseline_is_refused_as_a_fallback(tmp_path: Path) -> None:
    if shutil.which("objdump") is None:
        require("objdump (Debian package binutils)")
    spec = importlib.util.find_spec("llama_cpp")
    assert spec is not None and spec.origin is not None
    baseline = Path(spec.origin).parent / "lib"
    with pytest.raises(BuildError, match="uses AVX instructions"):
        check_no_avx(baseline)
    cpu_only = tmp_path / "lib"
    cpu_only.mkdir()
    shutil.copy(baseline / "libggml-base.so", cpu_only)  # scalar code: ggml-base has no AVX
    check_no_avx(cpu_only)
