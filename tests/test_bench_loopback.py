"""The parts of tests/bench/card_latency.py and memory.py that decide what they measure, run
against the real loopback servers: every proposal reaches its card with its check timed
apart, and two rounds of the memory bench's turns leave the servers' data as it was, but for
the mail they sent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hearth.connectors.evaluation.diff import diff
from tests.app.agent.scripted import ScriptedModel
from tests.bench.card_latency import CheckClock, Proposer, headless_cards, proposals
from tests.bench.loopback_world import World
from tests.bench.memory import REAL_EVERY, Relay, User, schedule, turns_in_rounds
from tests.bench.memory_turns import scripted_turns
from tests.connectors.servers import server_required

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with server_required(), World() as started:
        yield started


@pytest.fixture(autouse=True)
def world_home(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hearth's home is the world's, where its folders were granted and its store kept."""
    monkeypatch.setenv("HEARTH_HOME", str(world.home))


def test_every_proposed_change_reaches_its_card_and_changes_nothing(world: World) -> None:
    before = world.environment.snapshot()
    model = Proposer()
    assistant = world.assistant(model)
    clock = CheckClock()
    clock.install(assistant)
    planned = proposals(world)
    calls = [call for calls in planned.values() for call in calls]
    try:
        timings = headless_cards(assistant, model, clock, calls, rounds=2)
    finally:
        assistant.close()
    assert set(planned) == {"files", "calendar", "mail", "system"}
    for tool, _ in calls:
        assert len(timings[tool]) == 2, tool
        for timing in timings[tool]:
            assert 0 <= timing.check_ms <= timing.card_ms and timing.shown_ms <= timing.card_ms
    assert all(timing.check_ms == 0 for timing in timings["mail.move"])  # it has no check
    assert any(timing.check_ms > 0 for timing in timings["files.move"])
    assert diff(before, world.environment.snapshot()) == []  # every card was denied


def test_two_rounds_of_the_memory_turns_leave_the_data_as_it_was(world: World) -> None:
    before = world.environment.snapshot()
    relay = Relay(ScriptedModel([]))
    assistant = world.assistant(relay)
    user = User(world, assistant, relay)
    try:
        for round_ in (0, 1):
            for turn in scripted_turns(world, round_):
                user.play(turn)
    finally:
        assistant.close()
    calls = sum(len(turn.calls) for round_ in (0, 1) for turn in scripted_turns(world, round_))
    assert user.outcomes == {"scripted executed": calls}
    changes = [change.describe() for change in diff(before, world.environment.snapshot())]
    sent = [change for change in changes if change.startswith("mail.added(folder='Sent'")]
    assert len(sent) == 2 and set(changes) == set(sent), changes  # one sent message a round


def test_one_turn_in_every_few_is_the_real_models(world: World) -> None:
    turns = list(schedule(world, 4 * REAL_EVERY))
    assert [turn.real for turn in turns].count(True) == 4
    assert all(turns[n].real for n in range(REAL_EVERY - 1, len(turns), REAL_EVERY))
    played = turns_in_rounds(world, 2)
    assert played == 2 * len(scripted_turns(world, 0)) + played // REAL_EVERY
