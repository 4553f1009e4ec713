"""llama.cpp built without AVX, for the bundle's fallback on CPUs the AVX2 baseline would crash.

A second llama-cpp-python wheel, the same version as the venv's, is compiled once with AVX,
AVX2, FMA and F16C off (never -march=native) and kept in build/noavx; its libraries go into the
bundle's `llama_cpp/lib-noavx`, which `hearth.cpu_variant` chooses at start when /proc/cpuinfo
lacks a baseline flag. The compile takes several minutes on two cores; later builds reuse it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

from bundle_model import BuildError

CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF"
LIBRARY = "libllama.so"
# AVX code writes the 256-bit ymm registers; a build that truly lacks AVX never names one.
AVX_REGISTER = "%ymm"


def noavx_lib(cache: Path) -> Path:
    """The folder of no-AVX llama.cpp libraries, compiled into `cache` on first use."""
    lib = cache / f"lib-{version('llama_cpp_python')}"
    if (lib / LIBRARY).is_file():
        return lib
    wheels = cache / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    wanted = f"llama-cpp-python=={version('llama_cpp_python')}"
    print(f"compiling {wanted} without AVX (several minutes; kept in {cache})")
    # --no-cache-dir: pip caches a built wheel whatever CMAKE_ARGS were, so it would hand back
    # the AVX2 build.
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir"]
    command += ["--no-binary", "llama-cpp-python", wanted, "-w", str(wheels)]
    done = subprocess.run(command, env={**os.environ, "CMAKE_ARGS": CMAKE_ARGS}, check=False)
    if done.returncode != 0:
        raise BuildError(f"Compiling llama.cpp without AVX failed (status {done.returncode}).")
    partial = lib.with_name(lib.name + ".part")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for wheel in wheels.glob("*.whl"):
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith("llama_cpp/lib/") and not member.endswith("/"):
                    (partial / Path(member).name).write_bytes(archive.read(member))
    if not (partial / LIBRARY).is_file():
        raise BuildError(f"The no-AVX wheel in {wheels} holds no {LIBRARY}.")
    check_no_avx(partial)
    partial.replace(lib)
    return lib


def check_no_avx(lib: Path) -> None:
    """Refuse libraries that use AVX registers: they would crash where the fallback is needed."""
    objdump = shutil.which("objdump")
    if objdump is None:
        print("objdump is not installed; the no-AVX libraries were not disassembled to check.")
        return
    for library in sorted(lib.glob("libggml*.so*")):
        listing = subprocess.run(
            [objdump, "-d", str(library)], capture_output=True, text=True, check=True
        ).stdout
        if AVX_REGISTER in listing:
            raise BuildError(f"{library.name} uses AVX instructions; it is not a no-AVX build.")
