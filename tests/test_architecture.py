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


def contract(start: str) -> dict[str, list[str]]:
    return next(c for c in contracts() if c["name"].startswith(start))


def test_the_contracts_name_packages_not_lists_of_modules() -> None:
    # A hand-kept list goes stale when a module is added; a package or a wildcard never does.
    for found in contracts():
        for key in ("source_modules", "forbidden_modules", "protected_modules"):
            ours = [name for name in found.get(key, []) if name.startswith("hearth")]
            assert len(ours) <= 2, (found["name"], key)
    layers = contract("Layers:")
    assert layers["exhaustive"] and layers["containers"] == ["hearth"]


def test_every_contract_has_a_planted_violation() -> None:
    planted = {broken for _, _, broken in VIOLATIONS}
    for found in contracts():
        assert any(found["name"].startswith(name) for name in planted), found["name"]


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]
    env = {"PYTHONPATH": str(tree.parent), "COLUMNS": "500"}  # one line per contract
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


VIOLATIONS = [
    ("app/errors.py", "import hearth.connectors", "Layers:"),
    ("ui/__init__.py", "import hearth.connectors", "Layers:"),
    ("app/store/__init__.py", "import hearth.agent", "Layers:"),
    ("app/tools/__init__.py", "import hearth.consent", "Layers:"),
    ("app/plugins/connector.py", "import hearth.consent", "Layers:"),
    ("app/messages.py", "import hearth.engine", "Layers:"),
    ("app/stray.py", "import hearth.errors", "Layers:"),
    ("app/voice/audio.py", "import hearth.cli", "Layers:"),
    # The two cycles there were: one through a function-local import, one only for mypy.
    ("app/engine/gguf_summary.py", "def f():\n    import hearth.engine.gguf_check", "No cycles"),
    (
        "app/store/audit_export.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hearth.store.audit import X",
        "No cycles",
    ),
    ("connectors/__init__.py", "import hearth.store", "Connectors use only"),
    ("connectors/mail/imap.py", "from hearth.plugins.connector import Connector", "Connectors use"),
    ("ui/chat/panel.py", "from hearth.agent import Answer", "The faces"),
    ("app/cli/main.py", "import hearth.models.lookup", "The faces"),
    ("app/cli/main.py", "from hearth import paths", "The faces"),
    ("connectors/__init__.py", "import PySide6", "Only hearth.ui imports PySide6"),
    ("app/agent/__init__.py", "import hearth.engine.llama", "Only the models code"),
    ("app/cli/__init__.py", "import hearth.engine", "Only the models code"),
    ("app/models/loading.py", "import llama_cpp", "Only the engine imports llama_cpp"),
    ("ui/__init__.py", "import llama_cpp", "Only the engine imports llama_cpp"),
    ("connectors/mail/__init__.py", "import hearth.connectors.evaluation", "The evaluation"),
    ("ui/__init__.py", "import hearth.connectors.evaluation", "The evaluation"),
    ("connectors/system/macos.py", "import subprocess", "In the system connector only"),
    ("connectors/system/stray.py", "from subprocess import run", "In the system connector"),
    ("ui/voice/widgets.py", "import sounddevice", "Only voice.capture opens"),
    ("app/voice/service.py", "from faster_whisper import WhisperModel", "Only voice.capture"),
]


@pytest.mark.parametrize(("module", "line", "broken"), VIOLATIONS)
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
