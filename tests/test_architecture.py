"""The layering rules are enforced by import-linter; these tests keep the contracts honest."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def contracts() -> list[dict[str, list[str]]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(config["tool"]["importlinter"]["contracts"])


def core_modules() -> set[str]:
    names = {f"hearth.{p.stem}" for p in (ROOT / "app").glob("*.py") if p.stem != "__init__"}
    names |= {f"hearth.{p.name}" for p in (ROOT / "app").iterdir() if (p / "__init__.py").exists()}
    return names


def contract(start: str) -> dict[str, list[str]]:
    return next(c for c in contracts() if c["name"].startswith(start))


def test_every_core_module_is_bound_by_the_contracts() -> None:
    core = contract("Core (hearth) never imports")
    pyside = contract("Nothing outside hearth.ui imports PySide6")
    public = contract("Connectors use only")
    assert core_modules() <= set(core["source_modules"])
    assert core_modules() | {"hearth.connectors"} <= set(pyside["source_modules"])
    assert set(core["forbidden_modules"]) == {"hearth.ui", "hearth.connectors"}
    assert core_modules() | {"hearth.ui"} <= set(public["forbidden_modules"])
    engine = contract("Only the engine")
    allowed = {"hearth.engine", "hearth.models", "hearth.assistant"}
    assert core_modules() - allowed <= set(engine["source_modules"])
    llama = contract("Only the engine imports llama_cpp")
    assert core_modules() - {"hearth.engine"} <= set(llama["source_modules"])
    system = contract("In the system connector only commands runs programs")
    assert system["source_modules"] == ["hearth.connectors.system"]
    layers = contract("Layers:")
    assert layers["exhaustive"] and layers["containers"] == ["hearth"]


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]
    env = {"PYTHONPATH": str(tree.parent), "COLUMNS": "500"}  # one line per contract
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("app/errors.py", "import hearth.connectors", "Core (hearth) never imports"),
        ("connectors/__init__.py", "import PySide6", "Nothing outside hearth.ui imports PySide6"),
        ("connectors/__init__.py", "import hearth.store", "Connectors use only"),
        ("ui/__init__.py", "import hearth.connectors", "The UI reaches connectors only"),
        ("app/agent/__init__.py", "import hearth.engine.llama", "Only the engine"),
        ("app/cli/__init__.py", "import hearth.engine", "Only the engine"),
        ("app/models/loading.py", "import llama_cpp", "Only the engine imports llama_cpp"),
        ("ui/__init__.py", "import llama_cpp", "Only the engine imports llama_cpp"),
        ("app/store/__init__.py", "import hearth.agent", "Layers:"),
        ("app/tools/__init__.py", "import hearth.consent", "Layers:"),
        ("app/messages.py", "import hearth.engine", "Layers:"),
        ("app/stray.py", "import hearth.errors", "Layers:"),
        ("connectors/system/macos.py", "import subprocess", "In the system connector only"),
        ("connectors/system/stray.py", "from subprocess import run", "In the system connector"),
        ("ui/voice/widgets.py", "import sounddevice", "Only voice.capture opens"),
        ("app/voice/service.py", "from faster_whisper import WhisperModel", "Only voice.capture"),
        ("app/voice/audio.py", "import hearth.cli", "Layers:"),
    ],
)
def test_a_forbidden_import_breaks_the_build(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    tree = tmp_path / "hearth"
    shutil.copytree(ROOT / "app", tree)
    for sub in ("connectors", "ui", "resources"):
        shutil.copytree(ROOT / sub, tree / sub)
    target = tree / module.removeprefix("app/")
    target.write_text((target.read_text() if target.exists() else "") + f"\n{line}\n")
    result = lint_imports(tree)
    assert result.returncode != 0, result.stdout
    # "<name> BROKEN", or "<name> BROKEN (1 ignored import)" for a contract with exceptions.
    broken_names = [line for line in result.stdout.splitlines() if " BROKEN" in line]
    assert [name for name in broken_names if name.startswith(broken)], result.stdout


def test_the_tree_as_it_is_keeps_every_contract(tmp_path: Path) -> None:
    """Without this, a planted import could 'break' a contract that was broken already."""
    tree = tmp_path / "hearth"
    shutil.copytree(ROOT / "app", tree)
    for sub in ("connectors", "ui", "resources"):
        shutil.copytree(ROOT / sub, tree / sub)
    result = lint_imports(tree)
    assert result.returncode == 0, result.stdout


def test_every_package_is_in_the_distribution() -> None:
    # A package missing here works in the editable install and vanishes from wheels and
    # bundles: the mail connector once did.
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {
        ".".join((name, *init.parent.relative_to(ROOT / folder).parts))
        for name, folder in setuptools["package-dir"].items()
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert found - set(setuptools["packages"]) == set()
