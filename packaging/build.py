"""Build Hearth's one-folder Linux bundle with a model inside, then pack it.

    .venv/bin/python packaging/build.py --model ID|FILE.gguf [--out DIR] [--speech-model ID]
        [--noavx | --noavx-lib DIR] [--no-tarball]

Steps: find the model (a catalog id is downloaded through Hearth's own verified download, a
local .gguf is checked), freeze Hearth with PyInstaller (packaging/hearth.spec), copy the model
in with its size and sha256 record, refuse a bundle holding tests or dev tools, collect the
licences, report the size per component (printed, and written as JSON beside the bundle), and
pack `Hearth-<version>-linux-x86_64.tar.gz` (plus an AppImage when `appimagetool` is on PATH).
Any failure ends the build with one sentence and a non-zero status. See packaging/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import time
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_model import BuildError, bundle_model, bundle_speech_model, find_model  # noqa: E402
from bundle_report import (  # noqa: E402
    collect_licenses,
    forbidden_files,
    print_sizes,
    pure_modules,
    size_report,
    write_report,
)
from noavx import noavx_lib  # noqa: E402

NAME = "Hearth"
CONTENTS = "_internal"  # PyInstaller's folder beside the executable; `bundle_dir()` points here
PACKAGE_DIRS = {"": "app", "connectors": "connectors", "ui": "ui", "resources": "resources"}
DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Name=Hearth
Comment=A private assistant that runs a small model on this computer
Exec=Hearth
Icon=hearth
Terminal=false
Categories=Utility;
"""


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    try:
        build(options)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="catalog id or path to a .gguf file")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bundle")
    parser.add_argument("--speech-model", help="a Whisper model id to bundle for voice input")
    fallback = parser.add_mutually_exclusive_group()
    fallback.add_argument(
        "--noavx", action="store_true", help="compile and add the no-AVX fallback (releases)"
    )
    fallback.add_argument("--noavx-lib", type=Path, help="llama.cpp built without AVX (README)")
    parser.add_argument("--no-tarball", action="store_true", help="leave the folder unpacked")
    return parser.parse_args(argv)


def build(options: argparse.Namespace) -> None:
    out: Path = options.out.resolve()
    work = ROOT / "build" / "pyinstaller"
    # Downloads land in a cache of the build's own, so a rebuild does not download again.
    os.environ["HEARTH_HOME"] = str(ROOT / "build" / "model-cache")
    started = time.perf_counter()
    model = find_model(options.model)
    print(f"model: {model.path} ({model.record.size:,} bytes, sha256 {model.record.sha256})")
    fallback = noavx_lib(ROOT / "build" / "noavx") if options.noavx else options.noavx_lib
    freeze(out, work, fallback)
    frozen = time.perf_counter()
    bundle = out / NAME
    contents = bundle / CONTENTS
    bundle_model(model, contents / "models")
    speech_license = None
    if options.speech_model:
        _, speech_license = bundle_speech_model(options.speech_model, contents / "models")
    modules = pure_modules(work / "hearth" / "PYZ-00.toc")
    bad = forbidden_files(contents, modules)
    if bad:
        raise BuildError(f"The bundle holds tests or dev tools ({', '.join(bad[:5])}).")
    licensed = collect_licenses(
        bundle / "licenses", contents, modules, (model.label, model.license)
    )
    if speech_license:
        (bundle / "licenses" / "SPEECH-MODEL.txt").write_text(
            f"{options.speech_model}\nlicense: {speech_license}\n", encoding="utf-8"
        )
    (bundle / "hearth.desktop").write_text(DESKTOP_ENTRY, encoding="utf-8")
    shutil.copyfile(ROOT / "resources" / "icons" / "hearth.svg", bundle / "hearth.svg")
    report = size_report(bundle, contents, bundle / NAME)
    report |= {
        "model": model.record.filename,
        "model_license": model.license,
        "licensed_distributions": len(licensed),
        "freeze_seconds": round(frozen - started, 1),
    }
    if not options.no_tarball:
        report["tarball"] = str(pack(out, bundle))
        report["appimage"] = appimage(out, bundle)
    report["build_seconds"] = round(time.perf_counter() - started, 1)
    write_report(out / f"{NAME}-size.json", report)
    print(f"bundle: {bundle} ({report['build_seconds']} s)")
    print_sizes(report)


def freeze(out: Path, work: Path, noavx_lib: Path | None) -> None:
    """Run PyInstaller on the spec; its analysis cache in `work` speeds up the next build."""
    source = lay_out_source(work / "source")
    env = {**os.environ, "HEARTH_PACK_SOURCE": str(source)}
    if noavx_lib is not None:
        if not (noavx_lib / "libllama.so").is_file():
            raise BuildError(f"{noavx_lib} holds no libllama.so; see packaging/README.md.")
        env["HEARTH_PACK_NOAVX_LIB"] = str(noavx_lib.resolve())
    command = [sys.executable, "-m", "PyInstaller", str(ROOT / "packaging" / "hearth.spec")]
    command += ["--noconfirm", "--log-level", "WARN", "--distpath", str(out)]
    command += ["--workpath", str(work)]
    done = subprocess.run(command, env=env, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise BuildError(f"PyInstaller failed (status {done.returncode}); its log is above.")


def lay_out_source(dest: Path) -> Path:
    """A copy of `hearth` laid out as installed (pyproject's package-dir), for PyInstaller."""
    shutil.rmtree(dest, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for subpackage, folder in PACKAGE_DIRS.items():
        target = dest / "hearth" / subpackage
        shutil.copytree(ROOT / folder, target, ignore=ignore, dirs_exist_ok=True)
    return dest


def pack(out: Path, bundle: Path) -> Path:
    """`Hearth-<version>-linux-x86_64.tar.gz` holding the folder, its .desktop file and icon."""
    tarball = out / f"{NAME}-{version('hearth')}-linux-x86_64.tar.gz"
    partial = tarball.with_name(tarball.name + ".part")
    with tarfile.open(partial, "w:gz", compresslevel=6) as archive:
        archive.add(bundle, arcname=NAME)
    partial.replace(tarball)
    return tarball


def appimage(out: Path, bundle: Path) -> str:
    """An AppImage when appimagetool is on PATH; otherwise a note saying it was skipped."""
    tool = shutil.which("appimagetool")
    if tool is None:
        note = "skipped: appimagetool is not on PATH"
        print(f"AppImage {note}.")
        return note
    appdir = out / f"{NAME}.AppDir"
    shutil.rmtree(appdir, ignore_errors=True)
    shutil.copytree(bundle, appdir / "usr" / "lib" / NAME, symlinks=True)
    (appdir / "AppRun").symlink_to(f"usr/lib/{NAME}/{NAME}")
    shutil.copyfile(bundle / "hearth.desktop", appdir / "hearth.desktop")
    shutil.copyfile(bundle / "hearth.svg", appdir / "hearth.svg")
    image = out / f"{NAME}-{version('hearth')}-x86_64.AppImage"
    done = subprocess.run([tool, str(appdir), str(image)], env={**os.environ, "ARCH": "x86_64"})
    if done.returncode != 0:
        raise BuildError(f"appimagetool failed (status {done.returncode}); its log is above.")
    return str(image)


if __name__ == "__main__":
    sys.exit(main())
