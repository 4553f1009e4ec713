"""The tools a turn offered, in the terminal: `hearth ask --stats` says which connectors the
model could use (by title), a turn that left some out says so without `--stats`, and a
connector's name from outside is shown escaped, dimmed, on stderr."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from hearth.agent import AnswerDelta, ToolsOffered
from hearth.assistant import Assistant
from hearth.cli import chat as chat_module
from hearth.cli.ask_cmd import ask
from hearth.connectors.files import FilesConnector
from hearth.messages import CancelToken
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin
from tests.fixtures.spoofing import A_FEW, assert_safe, unstyled

SPOOF = "no\u202etes"


class OfferingSession:
    """A turn that offers `steps` first, then answers."""

    def __init__(self, *offered: ToolsOffered) -> None:
        self.offered = offered

    def run_turn(self, text: str, cancel: CancelToken, tool_choice: str = "auto") -> Iterator[Any]:
        yield from self.offered
        yield AnswerDelta("Done.")


def run(session: OfferingSession, *, stats: bool, titles: dict[str, str] | None = None) -> str:
    """What the terminal shows of one turn (stdout and stderr), styles kept."""
    runner = CliRunner()
    with runner.isolation(color=True) as (out, err, _):
        chat_module.run_turn(session, "hi", stats, titles=titles)  # type: ignore[arg-type]
        return err.getvalue().decode() + out.getvalue().decode()


def test_the_offered_tools_show_only_with_stats() -> None:
    session = OfferingSession(ToolsOffered(("calendar", "mail")))
    assert "Tools offered" not in run(session, stats=False)
    shown = run(session, stats=True, titles={"mail": "Mail"})
    assert "\x1b[2mTools offered: calendar, Mail\x1b[0m\n" in shown  # dimmed, on its own line


def test_no_tools_at_all_is_said_in_words() -> None:
    shown = unstyled(run(OfferingSession(ToolsOffered(())), stats=True))
    assert "No tools offered for this request.\n" in shown


def test_connectors_left_out_are_said_without_stats() -> None:
    offered = ToolsOffered(("calendar",), left_out=("files",))
    shown = unstyled(run(OfferingSession(offered), stats=False))
    assert "Tools offered: calendar; left out to keep the prompt small: files\n" in shown


def test_connectors_a_tools_reply_brought_in_are_named() -> None:
    offered = (ToolsOffered(("mail",)), ToolsOffered(("mail", "system"), added=("system",)))
    shown = unstyled(run(OfferingSession(*offered), stats=True))
    assert "Tools offered: mail\n" in shown
    assert "Tools offered: mail, system. Added after a tool's reply: system\n" in shown


def test_a_connector_name_from_outside_is_shown_escaped() -> None:
    offered = ToolsOffered((SPOOF,), left_out=(SPOOF,), added=(SPOOF,))
    shown = unstyled(run(OfferingSession(offered), stats=False))
    assert "Tools offered: no\\u202etes; left out to keep the prompt small: no\\u202etes" in shown
    assert_safe(shown, SPOOF, lines=True)  # the line feeds are the terminal's own


@pytest.mark.parametrize("spoof", A_FEW)
def test_a_connector_title_from_outside_is_shown_escaped(spoof: str) -> None:
    offered = ToolsOffered(("mcp_notes",), left_out=("mcp_notes",))
    shown = unstyled(run(OfferingSession(offered), stats=False, titles={"mcp_notes": spoof}))
    assert shown.count("\n") == 1  # the offered line, then the answer
    assert_safe(shown, spoof, lines=True)


def test_hearth_ask_with_stats_names_the_connector_by_its_title(
    monkeypatch: pytest.MonkeyPatch, files: FilesConnector
) -> None:
    model = ScriptedModel([Reply("Nothing to do.")])
    monkeypatch.setattr(chat_module, "load_model", lambda choice, n_ctx, threads: model)

    def assistant(chat_model: Any = None, **how: Any) -> Assistant:
        return Assistant.open(
            chat_model,
            plugins=[FilesPlugin(files)],
            entry_points=False,
            start_connectors=False,
            **how,
        )

    monkeypatch.setattr(chat_module, "Assistant", SimpleNamespace(open=assistant))
    question = "search my files for the budget"
    result = CliRunner().invoke(ask, ["--no-think", "--stats", question])
    assert result.exit_code == 0, result.output
    assert "Tools offered: Files\n" in result.stderr
    assert "Tools offered" not in result.stdout  # the answer alone, for a pipeline

    model.replies.append(Reply("Nothing to do."))
    quiet = CliRunner().invoke(ask, ["--no-think", question])
    assert quiet.exit_code == 0, quiet.output
    assert "Tools offered" not in quiet.output
