"""The test bundle, built once per set of inputs and kept outside the clone.

A PyInstaller build takes minutes, and a fresh clone would pay them on every run. The bundle is
kept in HEARTH_TEST_CACHE (default ~/.cache/hearth-tests) under a folder named by a hash of
everything the build reads: pyproject.toml, the files of every folder packaging/build.py
freezes and packaging/ itself, each installed distribution's RECORD (names, versions and file
hashes, so a rebuilt llama.cpp counts), the Python version and the build's arguments. Any
change to one of them builds again; the tests run the frozen bundle every time either way.

The kept folder is never changed by a test: one that must alter the bundle works on a linked
copy of its own (`private_copy`).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FROZEN_FOLDERS = ("app", "connectors", "ui", "resources", "packaging")
FROZEN_FILES = ("pyproject.toml",)  # the entry points the frozen app finds its connectors by
KEPT = 2  # bundles kept: the current inputs' and the one before (a branch switched back to)
SKIPPED = ("__pycache__",)


def cache_root() -> Path:
    chosen = os.environ.get("HEARTH_TEST_CACHE")
    return Path(chosen) if chosen else Path.home() / ".cache" / "hearth-tests"


def inputs_key(arguments: list[str]) -> str:
    digest = hashlib.sha256()
    for name in FROZEN_FILES:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    for folder in FROZEN_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and not any(part in SKIPPED for part in path.parts):
                digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    for record in sorted(_records()):
        digest.update(record.encode() + b"\0")
    digest.update(f"{sys.version}\0{' '.join(arguments)}".encode())
    return digest.hexdigest()[:16]


def _records() -> list[str]:
    found = []
    for distribution in importlib.metadata.distributions():
        name = distribution.metadata["Name"] or "?"
        if name.lower() == "hearth":
            continue  # the editable install: its sources are hashed above
        record = distribution.read_text("RECORD") or distribution.version
        # Files outside site-packages are console scripts, whose first line names this venv's
        # Python: the bundle holds none, and they would make every clone's key its own.
        inside = [line for line in record.splitlines() if not line.startswith("../")]
        found.append(f"{name}\n" + "\n".join(inside))
    return found


def cached_build(arguments: list[str], timeout: float) -> tuple[Path, float | None]:
    """The folder holding the built bundle (build.py's --out), and the build seconds (None
    when it was kept from an earlier run). A failed build raises with the build's output.

    Runs at the same time (two clones, two workers) take turns: the second waits for the
    first's build and uses it, and no run replaces a bundle another may be running.
    """
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    target = root / f"bundle-{inputs_key(arguments)}"
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "Hearth-size.json").is_file():
            target.touch()  # most recently used
            return target, None
        return target, _build(arguments, root, target, timeout)


def _build(arguments: list[str], root: Path, target: Path, timeout: float) -> float:
    partial = root / f".building-{target.name}"
    shutil.rmtree(partial, ignore_errors=True)  # what a stopped build left
    shutil.rmtree(target, ignore_errors=True)  # a bundle without its report is not whole
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), *arguments, "--out", str(partial)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise AssertionError(done.stdout[-3000:] + done.stderr[-5000:])
    seconds = time.perf_counter() - started
    partial.rename(target)  # whole or not at all: a stopped build leaves no half bundle kept
    _evict(root, keep=target)
    return seconds


def _evict(root: Path, keep: Path) -> None:
    kept = sorted(root.glob("bundle-*"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in [p for p in kept if p != keep][KEPT - 1 :]:
        shutil.rmtree(old, ignore_errors=True)


def private_copy(bundle: Path, dest: Path) -> Path:
    """`bundle` hard-linked into `dest`: free to copy, and a file replaced there (never
    rewritten in place) leaves the kept bundle as it was."""
    shutil.copytree(bundle, dest, symlinks=True, copy_function=os.link)
    return dest
