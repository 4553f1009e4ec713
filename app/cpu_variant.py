"""Which build of llama.cpp's CPU code a bundle loads: the AVX2 baseline or the no-AVX fallback.

A release bundle may carry llama.cpp twice: `llama_cpp/lib`, built for AVX2, FMA and F16C
(never -march=native), and `llama_cpp/lib-noavx`, built without them, for older or emulated
CPUs that the baseline would crash with SIGILL. The choice is made once, before llama_cpp is
imported, by pointing LLAMA_CPP_LIB_PATH at the fallback. From source the venv's one build is
always used, and a LLAMA_CPP_LIB_PATH the user set is never overridden.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hearth import paths

Variant = Literal["lib", "lib-noavx"]
BASELINE: Variant = "lib"
FALLBACK: Variant = "lib-noavx"
# What the baseline build was compiled for (scripts/setup's CMAKE_ARGS); Linux's flag names.
BASELINE_FLAGS = frozenset({"avx", "avx2", "fma", "f16c"})
LIB_PATH_ENV = "LLAMA_CPP_LIB_PATH"
FORCE_ENV = "HEARTH_CPU_VARIANT"  # "lib" or "lib-noavx": overrides what the CPU flags say
# libllama's own dependencies, in the order each needs the one before.
GGML_LIBRARIES = ("libggml-base.so.0", "libggml-cpu.so.0", "libggml.so.0")
MTMD_PATH_ENV = "MTMD_CPP_LIB"
CPUINFO = Path("/proc/cpuinfo")
SELF_MAPS = Path("/proc/self/maps")
_LOADED_MARKERS = ("/libggml-cpu.", "/libllama.")


@dataclass(frozen=True, slots=True)
class VariantChoice:
    """What the CPU calls for, which library folder was chosen, and whether Hearth set it."""

    wanted: Variant
    missing_flags: tuple[str, ...]
    folder: Path | None  # the folder LLAMA_CPP_LIB_PATH now names; None: llama_cpp's own lib
    applied: bool


def read_cpuinfo(path: Path = CPUINFO) -> str | None:
    """The text of /proc/cpuinfo, or None where there is none (macOS, Windows)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The first processor's `flags` (x86 Linux); empty when the text has none."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def missing_baseline_flags(cpuinfo: str | None) -> tuple[str, ...]:
    """Baseline instructions this CPU lacks; none when it cannot tell (not x86 Linux)."""
    flags = cpu_flags(cpuinfo) if cpuinfo is not None else frozenset()
    if not flags:
        # No x86 flags line (macOS, Windows, ARM): there is no x86 fallback to choose.
        return ()
    return tuple(sorted(BASELINE_FLAGS - flags))


def variant_for(cpuinfo: str | None) -> Variant:
    """The library folder this CPU needs: the baseline unless it lacks one of its flags."""
    return FALLBACK if missing_baseline_flags(cpuinfo) else BASELINE


def select_variant(
    *,
    bundle: Path | None,
    cpuinfo: str | None,
    environ: MutableMapping[str, str],
    preload: Callable[[Path], None] | None = None,
) -> VariantChoice:
    """Point llama_cpp at the fallback when this CPU needs it and the bundle has it."""
    missing = missing_baseline_flags(cpuinfo)
    forced = environ.get(FORCE_ENV)
    wanted: Variant = FALLBACK if missing else BASELINE
    if forced in (BASELINE, FALLBACK):
        wanted = FALLBACK if forced == FALLBACK else BASELINE
    if LIB_PATH_ENV in environ:
        return VariantChoice(wanted, missing, Path(environ[LIB_PATH_ENV]), applied=False)
    fallback = bundle / "llama_cpp" / FALLBACK if bundle is not None else None
    if wanted == FALLBACK and fallback is not None and fallback.is_dir():
        environ[LIB_PATH_ENV] = str(fallback)
        environ.setdefault(MTMD_PATH_ENV, str(fallback))
        (preload or preload_ggml)(fallback)
        return VariantChoice(wanted, missing, fallback, applied=True)
    return VariantChoice(wanted, missing, None, applied=False)


def preload_ggml(folder: Path) -> None:
    """Load the folder's ggml libraries by path, before libllama asks for them by name.

    A frozen app's LD_LIBRARY_PATH names the bundle's top folder, where PyInstaller links the
    baseline's ggml libraries, and the dynamic loader searches it before libllama's RUNPATH: the
    fallback's libllama would run the baseline's AVX2 code. Libraries already loaded are found
    by their SONAME, so loading these first settles which ones libllama gets.
    """
    for name in GGML_LIBRARIES:
        path = folder / name
        if path.is_file():
            ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)


_chosen: VariantChoice | None = None


def choose_variant() -> VariantChoice:
    """Make the choice for this process once; must run before llama_cpp is imported."""
    global _chosen
    if _chosen is None:
        _chosen = select_variant(
            bundle=paths.bundle_dir() if getattr(sys, "frozen", False) else None,
            cpuinfo=read_cpuinfo() if sys.platform.startswith("linux") else None,
            environ=os.environ,
        )
    return _chosen


def loaded_library_folder(maps: Path = SELF_MAPS) -> Path | None:
    """The folder llama.cpp's CPU library was actually loaded from (Linux), or None."""
    try:
        lines = maps.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split(maxsplit=5)
        path = fields[5] if len(fields) == 6 else ""
        if path.startswith("/") and any(marker in path for marker in _LOADED_MARKERS):
            return Path(path).parent
    return None


def llama_system_info() -> str | None:
    """llama.cpp's `llama_print_system_info()`, once the engine has loaded llama.cpp."""
    # Read through the binding the engine already imported: importing it here could load
    # llama.cpp before the engine has chosen the variant and set OpenMP's spin.
    binding = sys.modules.get("llama_cpp")
    if binding is None:
        return None
    raw = binding.llama_print_system_info()
    return raw.decode("utf-8", errors="replace").strip() if isinstance(raw, bytes) else str(raw)
