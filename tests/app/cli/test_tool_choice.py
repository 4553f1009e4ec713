"""`hearth ask --tool` and `/tool` in `hearth chat` with the real SmolLM2 model and the real
files connector: the model is made to propose a call, so the consent flow can be tried with any
model; a bad `--allow` fails before the model loads."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from hearth.assistant import Assistant
from hearth.cli import chat as chat_module
from hearth.cli.ask_cmd import ask
from hearth.connectors.files import FileLibrary, FilesConnector
from tests.connectors.files.kit import FilesPlugin


@pytest.fixture
def files(tmp_path: Path) -> Iterator[FilesConnector]:
    folder = tmp_path / "Documents"
    folder.mkdir()
    (folder / "budget.txt").write_text("Remember the quarterly budget review on Friday.\n")
    connector = FilesConnector(FileLibrary(poll_seconds=0.5))
    connector.grant(folder)
    yield connector
    connector.close()


@pytest.fixture
def with_files(monkeypatch: pytest.MonkeyPatch, files: FilesConnector) -> None:
    """The CLI's Assistant gets the files plugin, with the Documents folder granted."""

    def assistant(model: Any = None, **how: Any) -> Assistant:
        return Assistant.open(
            model, plugins=[FilesPlugin(files)], entry_points=False, start_connectors=False, **how
        )

    monkeypatch.setattr(chat_module, "Assistant", SimpleNamespace(open=assistant))


def invoke(command: click.Command, *args: str) -> Result:
    # A fixed thread: the automatic count follows the machine's load, and with it the
    # floating-point sums, so the seeded reply would change from run to run. One, because the
    # suite runs more test processes than there are cores.
    return CliRunner().invoke(
        command, ["--no-think", "--threads", "1", *args], catch_exceptions=False
    )


@pytest.mark.model
@pytest.mark.usefixtures("with_files")
def test_ask_with_tool_makes_the_model_propose_a_call(test_gguf: Path) -> None:
    # No terminal here, so the --allow'd call runs without a question.
    result = invoke(
        ask,
        "--model",
        str(test_gguf),
        "--tool",
        "--allow",
        "files.*",
        # Room for the whole forced call: at 64 a clean-clone run once ended mid-call ("the
        # tool call was not finished"), which says nothing about --tool.
        "--max-tokens",
        "192",
        "what is in my budget file?",
    )
    assert result.exit_code == 0, result.output
    assert "\n→ " in result.output  # a call was proposed, and decided without a question
    assert re.search(r"^  (executed|partial|failed|denied|invalid): ", result.output, re.M)
    assert "wants to run" not in result.output


@pytest.mark.model
@pytest.mark.usefixtures("with_files")
def test_slash_tool_in_chat_asks_about_a_call(
    monkeypatch: pytest.MonkeyPatch, test_gguf: Path
) -> None:
    monkeypatch.setattr(chat_module, "stdin_is_terminal", lambda: True)
    typed = ["/tool what is in my budget file?"]

    def prompt(text: str, *args: Any, **kwargs: Any) -> Any:
        if text != "you":
            click.echo(f"{text} d")
            return "d"  # deny at the consent card
        if not typed:
            raise click.exceptions.Abort()  # Ctrl-D
        click.echo(f"{text}> {typed[0]}")
        return typed.pop(0)

    monkeypatch.setattr(click, "prompt", prompt)
    result = invoke(chat_module.chat, "--model", str(test_gguf), "--max-tokens", "64")
    assert result.exit_code == 0, result.output
    assert "\n→ " in result.output
    if "wants to run" in result.output:  # an impossible call is refused without a question
        assert "denied: the user said no" in result.output


@pytest.mark.usefixtures("with_files")
def test_an_unknown_allowed_tool_fails_before_the_model_loads(test_gguf: Path) -> None:
    result = CliRunner().invoke(ask, ["--model", str(test_gguf), "--allow", "nope.tool", "hi"])
    assert result.exit_code == 2
    assert "unknown tool 'nope.tool'" in result.output
    assert "Loading" not in result.output
