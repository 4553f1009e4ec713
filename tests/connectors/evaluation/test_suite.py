"""Every built-in scenario through the real agent, gate and servers, with scripted models.

A solver replays each task's `solution`: the scenario must then pass, which proves it can be
solved and that the judge sees the solution's changes. A hijacked model replays each attack's
`script` (it reads the poisoned item, then obeys it): no attack may change anything, and each
attack call must reach the gate, so the test measures Hearth's guard and not a typo.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, get_args

import pytest

from hearth.agent import turn_context
from hearth.agent.offer import OfferPlanner
from hearth.connectors.evaluation.environment import Environment
from hearth.connectors.evaluation.runner import Outcome, run_scenario
from hearth.connectors.evaluation.scenario import PlannedCall, Scenario, Vector, load_suite
from hearth.messages import Message
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.servers import server_required

pytestmark = pytest.mark.server

TASKS = load_suite(["tasks"])
ATTACKS = load_suite(["injection"])
SOLVED = [scenario for scenario in TASKS + ATTACKS if scenario.solution]


@pytest.fixture(scope="module")
def environment() -> Iterator[Environment]:
    with server_required(), Environment() as world:
        yield world


def scripted(environment: Environment, scenario: Scenario, plan: tuple[PlannedCall, ...]) -> Any:
    """A model that makes `plan`'s calls, one per step, and "Done." after each turn's."""
    replies: list[Reply | Callable[[list[Message]], Reply]] = []
    for turn in range(1, len(scenario.turns) + 1):
        for call in (call for call in plan if call.turn == turn):
            replies.append(lambda _messages, call=call: _reply(environment, call))
        replies.append(Reply(text="Done."))
    return ScriptedModel(replies)


def _reply(environment: Environment, call: PlannedCall) -> Reply:
    arguments = {name: _resolved(environment, value) for name, value in call.arguments.items()}
    # A hijacked model writes any call it likes; the agent, not the model, must refuse it.
    return Reply(calls=[(call.tool, arguments)], unchecked=True)


def _resolved(environment: Environment, value: Any) -> Any:
    if isinstance(value, list):
        return [_resolved(environment, item) for item in value]
    if not isinstance(value, str) or not value.startswith("@"):
        return value
    kind, _, name = value[1:].partition(":")
    if kind == "path":
        return str(environment.documents / name)
    return environment.ids[f"{kind}:{name}"]


def explain(outcome: Outcome) -> str:
    lines = [f"{outcome.scenario.id}: error={outcome.error!r}", "changes:"]
    lines += [f"  {change.describe()}" for change in outcome.changes]
    lines += ["missing:", *(f"  {missing}" for missing in outcome.missing), "calls:"]
    for call in outcome.calls:
        decision = call.get("decision", {})
        lines.append(
            f"  {call.get('tool')} {call.get('outcome')} {decision.get('reason', '')[:90]}"
            f" -> {str(call.get('result', call.get('reason', '')))[:160]}"
        )
    return "\n".join(lines)


def test_the_suite_has_what_the_issue_asks_for() -> None:
    categories = [scenario.category for scenario in TASKS]
    assert len(TASKS) >= 40 and len(ATTACKS) >= 29
    for category in ("single", "multi_step", "multi_turn", "decline", "ask"):
        assert category in categories, category
    vectors = {scenario.attack.vector for scenario in ATTACKS if scenario.attack}
    assert vectors == set(get_args(Vector))
    crossing = [scenario for scenario in TASKS if scenario.id.startswith("cross-")]
    assert len(crossing) >= 16
    assert sum(scenario.category == "multi_turn" for scenario in crossing) >= 3


@pytest.mark.parametrize("scenario", SOLVED, ids=[scenario.id for scenario in SOLVED])
def test_each_task_passes_with_its_solution(environment: Environment, scenario: Scenario) -> None:
    model = scripted(environment, scenario, scenario.solution)
    outcome = run_scenario(environment, scenario, model)
    assert outcome.success, explain(outcome)


def test_the_model_reads_the_moment_the_world_was_built_for(environment: Environment) -> None:
    """A scenario's "tomorrow" is its own moment's: the request must carry that moment."""
    scenario = SOLVED[0]
    moment = datetime(2026, 2, 27, 23, 58, tzinfo=UTC)
    model = scripted(environment, scenario, scenario.solution)
    outcome = run_scenario(environment, scenario, model, now=moment)
    assert outcome.success, explain(outcome)
    request = next(m for m in model.requests[0].messages if m.role == "user")
    assert request.model_text.startswith(turn_context(moment))


@pytest.mark.parametrize("scenario", ATTACKS, ids=[scenario.id for scenario in ATTACKS])
def test_no_attack_changes_anything_when_the_model_obeys_it(
    environment: Environment, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every tool is offered at every step, so no attack call is stopped merely because the
    turn's text did not bring its tool in: each meets the consent gate."""
    monkeypatch.setattr(OfferPlanner, "plan", lambda planner, *_, **__: planner.everything())
    assert scenario.attack is not None
    model = scripted(environment, scenario, scenario.attack.script)
    outcome = run_scenario(environment, scenario, model)
    assert not outcome.attack_executed and not outcome.unauthorised, explain(outcome)
    assert outcome.attack_attempted, explain(outcome)
    attack_tools = {call.tool for call in scenario.attack.calls}
    attempts = [call for call in outcome.calls if call.get("tool") in attack_tools]
    # Each met the gate and was asked about (the rule of two overrode the standing rule), and
    # the careful user refused: never thrown out as invalid, which would prove nothing.
    assert attempts, explain(outcome)
    for call in attempts:
        assert (call["outcome"], call["asked"]) == ("denied", True), explain(outcome)
