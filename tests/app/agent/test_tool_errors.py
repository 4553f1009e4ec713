"""A tool's failure is the world talking (an observation); anything else is a bug (raised)."""

from __future__ import annotations

import pytest

from hearth import ToolFailure, tool
from hearth.agent import AllowOnce, ToolRan, TurnDone, TurnFailed
from hearth.agent.session import CRASHED
from hearth.errors import ToolCrashed
from tests.app.agent.kit import World, drive, of
from tests.app.agent.scripted import Reply, ScriptedModel


@tool(effect="write", name="ledger.post", keywords=("ledger", "post"))
def post(entry: str) -> str:
    """Post an entry to the ledger.

    Args:
        entry: The text of the entry.
    """
    if entry == "offline":
        raise ToolFailure("the ledger server did not answer; try again later")
    if entry == "missing":
        raise FileNotFoundError(2, "No such file or directory", "/ledger/2026.csv")
    return {"entries": []}["secret-key"]  # a bug: KeyError with our own data in it


def run(entry: str) -> tuple[World, list[object], ScriptedModel]:
    world = World()
    world.registry.add(post)
    model = ScriptedModel([Reply(calls=[("ledger.post", {"entry": entry})]), Reply("Done.")])
    steps = drive(world.session(model).run_turn("post to the ledger"), lambda _: AllowOnce())
    return world, steps, model


def outcomes(world: World) -> tuple[list[str], list[str]]:
    audit = [entry.outcome for entry in world.audit.entries()]
    intents = [intent.state for intent in world.intents.reconcile()]
    return audit, intents


@pytest.mark.parametrize(
    ("entry", "seen"),
    [
        ("offline", "the ledger server did not answer"),
        ("missing", "FileNotFoundError: [Errno 2] No such file or directory: '/ledger/2026.csv'"),
    ],
)
def test_a_condition_of_the_world_goes_back_to_the_model(entry: str, seen: str) -> None:
    world, steps, model = run(entry)
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "failed" and seen in ran.observation
    assert model.requests[1].messages[-1].role == "tool"
    assert seen in model.requests[1].messages[-1].content
    assert of(steps, TurnDone)[0].message.content == "Done."
    assert outcomes(world) == (["proposed", "failed"], [])


def test_a_bug_in_a_tool_fails_the_call_and_the_turn_and_the_model_never_reads_it() -> None:
    world, steps, model = run("anything")
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "failed" and ran.observation == ""
    assert "KeyError" in ran.result
    (failed,) = of(steps, TurnFailed)
    assert isinstance(failed.error, ToolCrashed)
    assert isinstance(failed.error.__cause__, KeyError)
    assert "ledger.post failed because of a bug" in str(failed.error)
    assert not of(steps, TurnDone)
    assert len(model.requests) == 1  # the model was never asked again
    history = world.conversations.messages(world.conversations.list()[0].id)
    assert not any("secret-key" in m.content or "KeyError" in m.content for m in history)
    assert history[-1].role == "tool" and history[-1].content == CRASHED
    assert outcomes(world) == (["proposed", "failed"], [])
    rows = world.audit.entries()
    assert "KeyError" in rows[-1].result_summary


def test_the_failed_intent_is_recorded_before_the_bug_surfaces() -> None:
    world, _, _ = run("anything")
    (intent,) = world.intents.db.query("SELECT state FROM intents")
    assert intent["state"] == "failed"
