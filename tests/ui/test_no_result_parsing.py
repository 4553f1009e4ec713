"""The UI never parses a tool's result: a card's words come typed from the core.

Every `json.load`/`json.loads` call in ui/ is found by reading the modules' syntax trees. The
only ones allowed parse what the user typed into a field (an edited call's arguments, a setting
typed as JSON); none of them is given a tool's result.
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "ui"
PARSERS = {"load", "loads"}
# (module under ui/, function): each parses text the user typed, never a tool's output.
USER_INPUT = {
    ("chat/dialogs.py", "parse_arguments"),
    ("forms.py", "JsonInput.value"),
}


def json_parses(path: Path) -> list[tuple[str, int]]:
    """(enclosing function, line) of each call that parses JSON in the module at `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "json"
        for alias in node.names
        if alias.name in PARSERS
    }
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{where}.{child.name}" if where else child.name
            if isinstance(child, ast.Call) and _parses(child.func, imported):
                found.append((where, child.lineno))
            visit(child, name)

    visit(tree, "")
    return found


def _parses(func: ast.expr, imported: set[str]) -> bool:
    if isinstance(func, ast.Attribute) and func.attr in PARSERS:
        return isinstance(func.value, ast.Name) and func.value.id == "json"
    return isinstance(func, ast.Name) and func.id in imported


def test_no_module_under_ui_parses_json_except_what_the_user_typed() -> None:
    modules = sorted(UI.rglob("*.py"))
    assert len(modules) > 20
    found = {
        (path.relative_to(UI).as_posix(), where, line)
        for path in modules
        for where, line in json_parses(path)
    }
    assert {(module, where) for module, where, _ in found} <= USER_INPUT, sorted(found)


def test_the_check_sees_each_way_of_parsing(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import json\nfrom json import loads as read\n\n"
        "def summary(raw):\n    return json.loads(raw)\n\n"
        "class Card:\n    def show(self, fp):\n        return json.load(fp), read(fp.read())\n",
        encoding="utf-8",
    )
    assert json_parses(planted) == [("summary", 5), ("Card.show", 9), ("Card.show", 9)]
