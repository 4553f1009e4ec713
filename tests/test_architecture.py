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


def test_every_core_module_is_bound_by_both_contracts() -> None:
    core, pyside, public = contracts()
    assert core_modules() <= set(core["source_modules"])
    assert core_modules() | {"hearth.connectors"} <= set(pyside["source_modules"])
    assert set(core["forbidden_modules"]) == {"hearth.ui", "hearth.connectors"}
    assert core_modules() | {"hearth.ui"} <= set(public["forbidden_modules"])


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]
    return subprocess.run(
        command, cwd=ROOT, env={"PYTHONPATH": str(tree.parent)}, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("app/errors.py", "import hearth.connectors"),
        ("connectors/__init__.py", "import PySide6"),
        ("connectors/__init__.py", "import hearth.store"),
    ],
)
def test_a_forbidden_import_breaks_the_build(tmp_path: Path, module: str, line: str) -> None:
    tree = tmp_path / "hearth"
    shutil.copytree(ROOT / "app", tree)
    for sub in ("connectors", "ui", "resources"):
        shutil.copytree(ROOT / sub, tree / sub)
    target = tree / module.removeprefix("app/")
    target.write_text(target.read_text() + f"\n{line}\n")
    result = lint_imports(tree)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout
