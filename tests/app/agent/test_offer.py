"""A turn's offer: whole connectors, decided once, fixed through the turn, grown only at its end."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from hearth.agent import (
    AgentConfig,
    ConsentAsked,
    ToolRan,
    ToolsOffered,
    default_system_prompt,
    turn_context,
)
from hearth.agent.offer import OfferPlanner, connector_of
from hearth.assistant import Assistant
from hearth.messages import CancelToken
from hearth.plugins.loading import load_plugins
from hearth.tools import Tool, ToolRegistry
from tests.app.agent.kit import FIXED_MOMENT, drive, fixed_clock, of
from tests.app.agent.scripted import Reply, ScriptedModel

BIG = 100_000


@pytest.fixture(scope="module")
def tools() -> list[Tool]:
    registry = ToolRegistry()
    load_plugins(registry, user_files=False, disabled=())
    return [tool for tool in registry if not tool.name.startswith("mcp")]


def names_of(tools: list[Tool], connector: str) -> list[str]:
    return [tool.name for tool in tools if connector_of(tool) == connector]


def test_a_request_that_crosses_connectors_gets_every_tool_of_both(tools: list[Tool]) -> None:
    planner = OfferPlanner(tools, budget=BIG)
    offer = planner.plan("Find Mette's mail and put the meeting in my calendar")
    assert offer.connectors == ("calendar", "mail")
    assert [t.name for t in offer.tools] == names_of(tools, "calendar") + names_of(tools, "mail")
    # Another wording, the same set in the same order: the same prompt, the same kept prefix.
    again = planner.plan("Put the meeting from Mette's email in my calendar")
    assert again.tools == offer.tools


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("Open my SAS booking email and send Erik my flight times.", {"mail"}),
        ("The dentist emailed that my appointment moved to Friday.", {"mail", "calendar"}),
        ("Turn the Wi-Fi on and send the email again.", {"system", "mail"}),
        ("Read cabin.txt in my documents and mail Lars the directions.", {"files", "mail"}),
        ("hi", set()),
    ],
)
def test_each_connector_the_request_names_is_offered(
    tools: list[Tool], request_text: str, expected: set[str]
) -> None:
    offer = OfferPlanner(tools, budget=BIG).plan(request_text)
    assert expected <= set(offer.connectors)
    assert bool(offer.connectors) == bool(expected)


def test_a_follow_up_keeps_the_connectors_earlier_turns_used(tools: list[Tool]) -> None:
    planner = OfferPlanner(tools, budget=BIG)
    assert "files" not in planner.plan("Call it garden-ideas instead").connectors
    assert "files" in planner.plan("Call it garden-ideas instead", used=["files"]).connectors


def test_the_budget_caps_the_estimated_tokens_and_says_what_it_left_out(
    tools: list[Tool],
) -> None:
    planner = OfferPlanner(tools, budget=BIG)
    whole = planner.plan("Mail Per the minutes file in my documents and book the meeting")
    assert set(whole.connectors) == {"calendar", "files", "mail"}
    budget = whole.tokens - 1
    tight = OfferPlanner(tools, budget=budget).plan(
        "Mail Per the minutes file in my documents and book the meeting"
    )
    assert tight.tokens <= budget and len(tight.connectors) == 2
    assert set(tight.connectors) | set(tight.left_out) == set(whole.connectors)


def test_a_tool_reply_that_names_another_connector_grows_the_set_at_its_end(
    tools: list[Tool],
) -> None:
    planner = OfferPlanner(tools, budget=BIG)
    offer = planner.plan("Send Bob the slides email")
    grown = planner.grow(offer, "The mail server cannot be reached: Wi-Fi is off.", failed=True)
    assert grown.connectors == (*offer.connectors, "system")
    assert grown.tools[: len(offer.tools)] == offer.tools  # never reordered, never shrunk
    assert grown.grown == ("system",)
    assert planner.grow(grown, "Wi-Fi is off.", failed=True) is grown
    # What a tool returned grows the set only where it names a connector.
    assert planner.grow(offer, "Thanks, I will answer about the report soon.") is offer
    assert planner.grow(offer, "Queued: you are offline.").connectors[-1] == "system"


@pytest.fixture
def assistant_with(tmp_path: object) -> Iterator[object]:
    opened: list[Assistant] = []

    def make(model: ScriptedModel) -> Assistant:
        assistant = Assistant.open(model, user_plugins=False, start_connectors=False)
        opened.append(assistant)
        return assistant

    yield make
    for assistant in opened:
        assistant.close()


def test_the_offer_stays_fixed_through_every_step_of_a_turn(assistant_with) -> None:  # type: ignore[no-untyped-def]
    replies = [
        Reply(calls=[("mail.search", {"words": "garden"})], unchecked=True),
        Reply(calls=[("calendar.list_events", {"start": "bad", "end": "bad"})], unchecked=True),
        Reply(text="Done."),
    ]
    model = ScriptedModel(replies)
    config = AgentConfig(tool_budget=BIG, clock=fixed_clock)
    session = assistant_with(model).session(config=config)
    text = "Find Mette's mail about the garden and put the meeting in my calendar"
    steps = drive(session.run_turn(text, CancelToken()), None)
    offered = of(steps, ToolsOffered)
    assert offered[0].connectors == ("calendar", "mail")
    assert len(model.requests) == 3
    assert model.requests[0].tools == model.requests[1].tools == model.requests[2].tools
    # The system text is the same every day: the moment goes with the request.
    system = model.requests[0].messages[0]
    assert system.content == default_system_prompt() and not any(
        c.isdigit() for c in system.content
    )
    user = model.requests[0].messages[1]
    assert user.content == text
    assert user.model_text.startswith(turn_context(FIXED_MOMENT)) and text in user.model_text


def test_a_tool_outside_the_turns_set_is_refused_before_any_card(assistant_with) -> None:  # type: ignore[no-untyped-def]
    replies = [
        Reply(calls=[("system.set_wifi", {"enabled": False})], unchecked=True),
        Reply(text="Done."),
    ]
    session = assistant_with(ScriptedModel(replies)).session(config=AgentConfig(tool_budget=BIG))
    steps = drive(session.run_turn("What is on my calendar tomorrow?", CancelToken()), None)
    assert not of(steps, ConsentAsked)
    ran = of(steps, ToolRan)[0]
    assert ran.outcome == "invalid" and "not offered" in ran.observation


def test_turn_context_names_the_day_time_and_zone() -> None:
    moment = datetime(2026, 12, 3, 14, 5, tzinfo=UTC)
    assert turn_context(moment) == "(It is Thursday 2026-12-03 14:05, UTC.)"
