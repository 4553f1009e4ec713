"""Every `hearth …` command a message tells the user to run exists, with its options.

A hint that names a command Hearth does not have (`hearth mail password` did) sends the user
looking for something that is not there; this reads every string in the code and walks each
command it names through the real command tree, plugins' commands included.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from hearth.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
# `hearth …` in backticks, or after two spaces or ": " as the terminal's hints write it.
NAMED = re.compile(r"`hearth ([^`]+)`|(?:  |: )hearth ([a-z][a-z -]*)")


def hints() -> Iterator[tuple[str, str]]:
    for folder in ("app", "connectors", "ui"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    for match in NAMED.finditer(node.value):
                        yield f"{path.relative_to(ROOT)}", (match[1] or match[2]).strip()


def test_hints_are_found() -> None:
    named = {hint for _, hint in hints()}
    assert "calendar --ask-password sync" in named and "mail --ask-password sync" in named
    assert len(named) > 30


@pytest.mark.parametrize(("where", "hint"), sorted(set(hints())))
def test_every_command_a_message_names_exists(where: str, hint: str) -> None:
    command: click.Command = cli
    context = click.Context(cli, info_name="hearth")
    for word in hint.split():
        if word.startswith("-"):
            options = {name for p in command.params for name in p.opts}
            assert word in options or word == "--help", f"{where}: `hearth {hint}`: no {word}"
        elif isinstance(command, click.Group) and not word.startswith(("<", "{")):
            found = command.get_command(context, word)
            assert found is not None, f"{where}: `hearth {hint}`: no command {word!r}"
            command, context = found, click.Context(found, parent=context, info_name=word)
        else:
            break  # an argument (FILE, ID, {name}, ~/path): the command is found
