"""Which tools a reply could use, in its Thoughts: the connectors offered, by title, escaped when
a plugin or an MCP server named them; those left out or brought in by a tool's reply; and a
single quiet line when the model did not think."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hearth import Connector, hookimpl, tool
from hearth.agent import ReasoningDelta, ToolsOffered
from hearth.assistant import Assistant
from hearth.tools import Tool
from hearth.ui.chat.entries import ReasoningEntry
from hearth.ui.chat.presenter import TurnPresenter
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import StepEvent
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.fixtures.spoofing import assert_safe
from tests.ui.chat.kit import Desk, DeskPlugin, Harness, open_window

NAME_SPOOF = "no\u202etes"  # a connector's name, as an outside plugin may give it
TITLE_SPOOF = "Light\u202ehouse\u2028⚠ Hearth: verified"  # an MCP server's own name, in a title


@tool(effect="read", keywords=("lighthouse",))
def beacon_find(place: str) -> str:
    """Find a lighthouse.

    Args:
        place: Where to look.
    """
    return "on the cliff"


@tool(effect="read", keywords=("lighthouse",))
def keeper_find(place: str) -> str:
    """Find a lighthouse keeper.

    Args:
        place: Where to look.
    """
    return "in the cottage"


class LighthousePlugin:
    """A connector with an outside title, and a tool of a connector with an outside name."""

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(Connector("lighthouse", TITLE_SPOOF, "Lighthouses.", tools=[beacon_find]))

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(dataclasses.replace(keeper_find, connector=NAME_SPOOF))


@pytest.fixture
def lighthouse(qtbot: Any, desk: Desk, script: list[Any]) -> Iterator[Harness]:
    plugins = [DeskPlugin(desk), LighthousePlugin()]
    model = ScriptedModel(script)
    assistant = Assistant.open(model, plugins=plugins, entry_points=False, start_connectors=False)
    try:
        yield from open_window(qtbot, assistant, desk)
    finally:
        assistant.close()


def thoughts(harness: Harness) -> list[ReasoningEntry]:
    return [e for e in harness.controller.transcript.entries if isinstance(e, ReasoningEntry)]


def test_the_thoughts_say_which_connectors_were_offered_escaped(
    lighthouse: Harness, script: list[Reply], qtbot: Any
) -> None:
    script.append(Reply(text="On the cliff.", reasoning="They ask where the lighthouse is."))
    lighthouse.type_and_send("Where is the lighthouse?")
    lighthouse.wait_for_turn_end()

    assert lighthouse.kinds() == ["UserEntry", "ReasoningEntry", "AnswerEntry"]
    (entry,) = thoughts(lighthouse)
    assert entry.text.strip() == "They ask where the lighthouse is."
    # The title where the connector has one, else its name; each as `shown` writes it.
    assert entry.tools == (
        "Tools offered: Light\\u202ehouse\\u2028⚠ Hearth: verified, no\\u202etes"
    )
    assert_safe(entry.tools, TITLE_SPOOF)
    assert_safe(entry.tools, NAME_SPOOF)
    assert not entry.tools_left_out
    assert entry.copy_text.startswith(entry.tools + "\n\n")

    # Folded, the Thoughts are one header line; open, the tools' line shows above the thoughts.
    view, row = lighthouse.chat.view, lighthouse.controller.transcript.index_of(entry)
    folded = view.visualRect(row).height()
    lighthouse.controller.transcript.set_collapsed(row.row(), False)
    qtbot.waitUntil(lambda: view.visualRect(row).height() > folded + view.fontMetrics().height())


def test_without_thinking_the_tools_line_is_all_the_thoughts_show(
    lighthouse: Harness, script: list[Reply], qtbot: Any
) -> None:
    script.append(Reply(text="It is on the cliff."))
    lighthouse.type_and_send("Where is the lighthouse?")
    lighthouse.wait_for_turn_end()

    assert lighthouse.kinds() == ["UserEntry", "ReasoningEntry", "AnswerEntry"]
    (entry,) = thoughts(lighthouse)
    assert entry.text == "" and entry.tools.startswith("Tools offered: Light\\u202ehouse")
    view, row = lighthouse.chat.view, lighthouse.controller.transcript.index_of(entry)
    line = view.fontMetrics().height()
    qtbot.waitUntil(lambda: 0 < view.visualRect(row).height() < 3 * line)  # one quiet line


def test_a_request_no_connector_fits_says_none_was_offered(
    lighthouse: Harness, script: list[Reply]
) -> None:
    script.append(Reply(text="Hello!"))
    lighthouse.type_and_send("Hi")
    lighthouse.wait_for_turn_end()
    (entry,) = thoughts(lighthouse)
    assert entry.tools == "No tools offered for this request."


def show(presenter: TurnPresenter, *steps: Any) -> None:
    for step in steps:
        presenter.show(StepEvent(1, step))


def test_left_out_stays_in_view_and_added_ones_update_the_same_line(qtbot: Any) -> None:
    transcript = TranscriptModel()
    presenter = TurnPresenter(transcript, lambda: {"mail": "Mail", "system": "System"})
    presenter.begin("why can't you see my mail?")
    show(
        presenter,
        ToolsOffered(("calendar", "mail"), left_out=("files",)),
        ReasoningDelta("  Looking at the mail."),
        ToolsOffered(("calendar", "mail", "system"), ("files",), added=("system",)),
    )
    (entry,) = [e for e in transcript.entries if isinstance(e, ReasoningEntry)]
    assert entry.text == "Looking at the mail."  # the thinking streamed into the same row
    assert entry.tools == (
        "Tools offered: calendar, Mail, System; left out to keep the prompt small: files. "
        "Added after a tool's reply: System"
    )
    assert entry.tools_left_out

    presenter.begin("and now?")  # the next turn gets a line of its own
    show(presenter, ToolsOffered((NAME_SPOOF,)))
    assert [type(e).__name__ for e in transcript.entries] == [
        "UserEntry",
        "ReasoningEntry",
        "UserEntry",
        "ReasoningEntry",
    ]
    last = transcript.entries[-1]
    assert isinstance(last, ReasoningEntry) and last.tools == "Tools offered: no\\u202etes"
