"""The start-time choice between llama.cpp's AVX2 build and a bundle's no-AVX fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hearth import cpu_variant
from hearth.cpu_variant import (
    BASELINE,
    FALLBACK,
    FORCE_ENV,
    LIB_PATH_ENV,
    cpu_flags,
    loaded_library_folder,
    missing_baseline_flags,
    select_variant,
    variant_for,
)

# The first processor of this development machine's /proc/cpuinfo, as captured.
EPYC = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
stepping\t: 1
microcode\t: 0x1000065
cpu MHz\t\t: 2596.144
cache size\t: 1024 KB
physical id\t: 0
siblings\t: 2
core id\t\t: 0
cpu cores\t: 2
apicid\t\t: 0
initial apicid\t: 0
fpu\t\t: yes
fpu_exception\t: yes
cpuid level\t: 28
wp\t\t: yes
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx \
fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl \
xtopology nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 \
sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm \
cmp_legacy cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw topoext vmmcall fsgsbase \
tsc_adjust bmi1 avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap avx512ifma \
clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves avx512_bf16 \
clzero xsaveerptr arat avx512vbmi umip avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni \
avx512_bitalg avx512_vpopcntdq rdpid fsrm
bugs\t\t: sysret_ss_attrs null_seg spectre_v1 spectre_v2 spec_store_bypass srso spectre_v2_user
bogomips\t: 5192.28
TLB size\t: 3584 4K pages
clflush size\t: 64
cache_alignment\t: 64
address sizes\t: 48 bits physical, 48 bits virtual
power management:
"""
# The same CPU as an older one (or a VM that hides AVX2) reports it.
EPYC_WITHOUT_AVX2 = EPYC.replace(" avx2 ", " ")
# An ARM Linux machine names its features differently; there is no x86 fallback to pick.
ARM = "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 crc32\n"
LLAMA_LIBS = ("libllama.so", "libggml.so.0", "libggml-base.so.0", "libggml-cpu.so.0")


def test_the_real_cpuinfo_has_every_baseline_flag() -> None:
    assert {"avx", "avx2", "fma", "f16c"} <= cpu_flags(EPYC)
    assert missing_baseline_flags(EPYC) == ()
    assert variant_for(EPYC) == BASELINE


def test_a_cpu_without_avx2_needs_the_fallback() -> None:
    assert "avx2" not in cpu_flags(EPYC_WITHOUT_AVX2)
    assert missing_baseline_flags(EPYC_WITHOUT_AVX2) == ("avx2",)
    assert variant_for(EPYC_WITHOUT_AVX2) == FALLBACK


def test_no_x86_flags_keeps_the_baseline() -> None:
    assert variant_for(ARM) == BASELINE
    assert variant_for(None) == BASELINE


def _bundle_with_fallback(root: Path) -> Path:
    (root / "llama_cpp" / FALLBACK).mkdir(parents=True)
    return root


def test_a_bundle_points_llama_cpp_at_its_fallback(tmp_path: Path) -> None:
    bundle = _bundle_with_fallback(tmp_path)
    environ: dict[str, str] = {}
    choice = select_variant(bundle=bundle, cpuinfo=EPYC_WITHOUT_AVX2, environ=environ)
    assert choice.applied and choice.folder == bundle / "llama_cpp" / FALLBACK
    assert environ[LIB_PATH_ENV] == str(bundle / "llama_cpp" / FALLBACK)


def test_a_cpu_with_avx2_keeps_the_baseline_in_a_bundle(tmp_path: Path) -> None:
    environ: dict[str, str] = {}
    choice = select_variant(bundle=_bundle_with_fallback(tmp_path), cpuinfo=EPYC, environ=environ)
    assert not choice.applied and choice.wanted == BASELINE
    assert environ == {}


def test_without_a_fallback_folder_nothing_is_set(tmp_path: Path) -> None:
    environ: dict[str, str] = {}
    choice = select_variant(bundle=tmp_path, cpuinfo=EPYC_WITHOUT_AVX2, environ=environ)
    assert choice.wanted == FALLBACK and not choice.applied
    assert environ == {}


def test_from_source_the_venv_build_is_always_used() -> None:
    environ: dict[str, str] = {}
    choice = select_variant(bundle=None, cpuinfo=EPYC_WITHOUT_AVX2, environ=environ)
    assert not choice.applied and environ == {}


def test_the_users_own_library_path_wins(tmp_path: Path) -> None:
    environ = {LIB_PATH_ENV: "/opt/my-llama"}
    choice = select_variant(
        bundle=_bundle_with_fallback(tmp_path), cpuinfo=EPYC_WITHOUT_AVX2, environ=environ
    )
    assert not choice.applied and environ == {LIB_PATH_ENV: "/opt/my-llama"}


def test_the_loaded_folder_is_read_from_the_process_maps(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.write_text(
        "7f00a000-7f00b000 r--p 00000000 08:01 131 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f00c000-7f00d000 rw-p 00000000 00:00 0 \n"
        "7f00e000-7f00f000 r-xp 00001000 08:01 555 /opt/Hearth/_internal/llama_cpp/lib-noavx/"
        "libggml-cpu.so.0\n",
        encoding="utf-8",
    )
    assert loaded_library_folder(maps) == Path("/opt/Hearth/_internal/llama_cpp/lib-noavx")
    assert loaded_library_folder(tmp_path / "missing") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_fallback_folder_is_what_llama_cpp_really_loads(tmp_path: Path) -> None:
    """A stand-in fallback (copies of the real libraries) must be loaded whole, not mixed."""
    import llama_cpp

    installed = Path(llama_cpp.__file__).parent / "lib"
    fallback = tmp_path / "llama_cpp" / FALLBACK
    fallback.mkdir(parents=True)
    for name in LLAMA_LIBS:
        shutil.copyfile(installed / name, fallback / name)
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from hearth.cpu_variant import select_variant, loaded_library_folder\n"
        f"select_variant(bundle=Path({str(tmp_path)!r}), cpuinfo=sys.stdin.read(),"
        " environ=os.environ)\n"
        "import llama_cpp\n"
        "maps = Path('/proc/self/maps').read_text().split()\n"
        "ours = [p for p in maps if '/libggml' in p or '/libllama' in p]\n"
        "print(sorted({str(Path(p).parent) for p in ours}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != LIB_PATH_ENV}
    # As a frozen app's bootloader does: the baseline's libraries on LD_LIBRARY_PATH, which the
    # dynamic loader searches before libllama's RUNPATH.
    env["LD_LIBRARY_PATH"] = str(installed)
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=EPYC_WITHOUT_AVX2,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([str(fallback)])  # every ggml library, not a mix


def test_this_process_reports_the_venv_build() -> None:
    from hearth.engine.llama import LlamaCppModel  # loads llama.cpp the way Hearth does

    assert LlamaCppModel
    folder = loaded_library_folder()
    if not sys.platform.startswith("linux"):
        assert folder is None
        return
    assert folder is not None and folder.name == "lib"
    assert cpu_variant.choose_variant().applied is False
    assert cpu_variant.llama_system_info() is not None


def test_the_variant_can_be_forced_either_way(tmp_path: Path) -> None:
    bundle = _bundle_with_fallback(tmp_path)
    environ = {FORCE_ENV: FALLBACK}
    choice = select_variant(bundle=bundle, cpuinfo=EPYC, environ=environ)
    assert choice.applied and environ[LIB_PATH_ENV] == str(bundle / "llama_cpp" / FALLBACK)
    environ = {FORCE_ENV: "lib"}
    assert not select_variant(bundle=bundle, cpuinfo=EPYC_WITHOUT_AVX2, environ=environ).applied
    assert LIB_PATH_ENV not in environ
