"""`hearth`'s exported names: the one door for connectors, plugins, scripts and the faces."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import hearth

INIT = Path(hearth.__file__)


def type_checking_imports() -> dict[str, tuple[str, ...]]:
    tree = ast.parse(INIT.read_text())
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    return {
        node.module: tuple(alias.name for alias in node.names)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
    }


def test_mypy_reads_the_same_names_that_load_on_first_use() -> None:
    assert type_checking_imports() == dict(hearth._ON_USE)


def test_every_exported_name_resolves_to_the_object_its_module_defines() -> None:
    for module, names in hearth._ON_USE.items():
        source = __import__(module, fromlist=["_"])
        for name in names:
            assert getattr(hearth, name) is getattr(source, name), name
    # Submodules appear as attributes once imported; they are not exported.
    defined = {
        name
        for name in dir(hearth)
        if not name.startswith("_") and not isinstance(getattr(hearth, name), ModuleType)
    }
    assert set(hearth.__all__) == defined - {"TYPE_CHECKING", "import_module"}


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        hearth.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("hearth.NoSuchThing resolved")


def test_a_plugin_importing_hearth_does_not_load_the_agent_models_or_voice() -> None:
    code = (
        "import sys, hearth\n"
        "heavy = [m for m in sys.modules if m.startswith(('hearth.agent', 'hearth.models',"
        " 'hearth.voice', 'hearth.assistant', 'hearth.engine', 'llama_cpp'))]\n"
        "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
