"""`hearth ask --json`: JSON lines a pipeline can read, one per tool call as it ends and then
the whole turn; nothing is ever asked, so only rules let a tool run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from hearth.assistant import Assistant
from hearth.cli import ask_cmd, chat
from hearth.cli.main import cli
from hearth.connectors.files import FilesConnector
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin


def ask_json(
    monkeypatch: pytest.MonkeyPatch, files: FilesConnector, replies: list[Reply], *options: str
) -> list[dict[str, Any]]:
    model = ScriptedModel(replies)
    monkeypatch.setattr(chat, "load_model", lambda choice, n_ctx, threads: model)

    def assistant(chat_model: Any = None, **how: Any) -> Assistant:
        return Assistant.open(
            chat_model,
            plugins=[FilesPlugin(files)],
            entry_points=False,
            start_connectors=False,
            **how,
        )

    monkeypatch.setattr(chat, "Assistant", SimpleNamespace(open=assistant))
    result = CliRunner().invoke(
        ask_cmd.ask, ["--json", *options, "Find my budget note"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_each_call_is_a_line_then_the_whole_turn(
    monkeypatch: pytest.MonkeyPatch, files: FilesConnector, documents: Path
) -> None:
    note = str(documents / "budget.txt")
    replies = [
        Reply(calls=[("files.read", {"path": note})], reasoning="Read the note."),
        Reply(text="The review is on Friday."),
    ]
    call, done = ask_json(monkeypatch, files, replies, "--allow", f"files.read:{documents}")
    assert (call["type"], call["tool"], call["outcome"]) == ("tool_call", "files.read", "executed")
    assert call["decision"]["allowed"] and call["decision"]["by"] == "rule"
    assert call["asked"] is False and "quarterly budget review" in call["result"]
    assert done["type"] == "done" and done["answer"] == "The review is on Friday."
    assert done["reasoning"] == "Read the note." and done["calls"] == [call]
    assert done["stop_reason"] == "end" and done["stats"]["model_calls"] == 2


def test_a_call_no_rule_allows_is_refused_without_asking(
    monkeypatch: pytest.MonkeyPatch, files: FilesConnector
) -> None:
    replies = [Reply(calls=[("files.search", {"query": "budget"})]), Reply(text="I could not.")]
    call, done = ask_json(monkeypatch, files, replies)
    assert call["outcome"] == "denied" and not call["decision"]["allowed"]
    assert call["decision"]["by"] == "fail-closed" and "headless" in call["decision"]["reason"]
    assert done["answer"] == "I could not."


@pytest.mark.model
def test_a_real_model_answers_in_json(test_gguf: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["ask", "--json", "--no-think", "--max-tokens", "12", "--model", str(test_gguf), "Hi!"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    *_, done = [json.loads(line) for line in result.stdout.splitlines()]
    assert done["type"] == "done" and done["answer"]
    assert done["stop_reason"] in ("end", "max_tokens") and done["stats"]["completion_tokens"] > 0
