"""The terminal says how far the model has read the prompt, on stderr, only at a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import click
import pytest
from click.testing import CliRunner

from hearth.assistant import Assistant
from hearth.cli import ask_cmd, chat
from hearth.cli.reading_line import CLEAR
from hearth.generation import EngineEvent, GenerationSettings, PromptProgress
from hearth.messages import CancelToken, Message, ToolSpec
from tests.app.agent.scripted import Reply, ScriptedModel

ANSWER = "The tide turns twice a day."


class ReadsFirst(ScriptedModel):
    """Says it read its prompt in two batches, then replies as scripted (a scripted model)."""

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        for read in (0, 512, 1024):
            yield PromptProgress(read, 1024)
        yield from super().generate(messages, tools, settings, cancel)


@pytest.fixture
def terminal() -> Iterator[tuple[Any, int]]:
    """A real pseudo-terminal: what is written to the first is read back from the second."""
    leader, follower = os.openpty()
    stream = os.fdopen(follower, "w", encoding="utf-8")
    try:
        yield stream, leader
    finally:
        stream.close()
        os.close(leader)


def test_a_terminal_sees_the_reading_then_only_the_reply(
    terminal: tuple[Any, int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream, leader = terminal
    assistant = Assistant.open(
        ReadsFirst([Reply(text=ANSWER)]), entry_points=False, start_connectors=False
    )
    try:
        session = assistant.session(interactive=False)
        monkeypatch.setattr(sys, "stderr", stream)
        chat.run_turn(session, "When does the tide turn?", False)
        stream.flush()
    finally:
        assistant.close()
    said = os.read(leader, 65536).decode("utf-8")
    lines = [click.style(f"reading… {percent}%", dim=True) for percent in (0, 50, 100)]
    # Each batch rewrites the line in place; it is wiped before the reply (on stdout) begins.
    assert said == "".join(CLEAR + line for line in lines) + CLEAR
    out = capsys.readouterr().out
    assert ANSWER in out and "reading" not in out


def test_piped_output_stays_just_the_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ReadsFirst([Reply(text=ANSWER)])
    monkeypatch.setattr(chat, "load_model", lambda choice, n_ctx, threads: model)

    def assistant(chat_model: Any = None, **how: Any) -> Assistant:
        return Assistant.open(chat_model, entry_points=False, start_connectors=False, **how)

    monkeypatch.setattr(chat, "Assistant", SimpleNamespace(open=assistant))
    result = CliRunner().invoke(ask_cmd.ask, ["When does the tide turn?"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == ANSWER
    assert "reading" not in result.stderr and CLEAR not in result.stderr
