"""The whole loop with the real SmolLM2 model: engine, tool selection, gate, executor, audit."""

from __future__ import annotations

import pytest

from hearth.agent import AgentConfig, AllowOnce, ConsentAsked, ToolRan, TurnDone
from hearth.engine.llama import LlamaCppModel
from hearth.generation import GenerationSettings
from hearth.ruling import Decider
from tests.app.agent.kit import World, drive, fixed_clock, of

pytestmark = pytest.mark.model


def test_real_model_turns_run_only_gated_calls_and_audit_them(smol: LlamaCppModel) -> None:
    world = World()
    world.allow("volume_set", {"setting": "volume", "level": 30}, scope="volume:0-100")
    settings = GenerationSettings(max_tokens=120, seed=11, temperature=0.2)
    session = world.session(smol, config=AgentConfig(settings=settings, clock=fixed_clock))
    asked: list[str] = []

    def approve(step: ConsentAsked) -> AllowOnce:
        asked.append(step.request.call.name)
        return AllowOnce()

    runs: list[ToolRan] = []
    for request in ("Set the volume to 30 percent.", "Save a note titled milk saying buy milk."):
        steps = drive(session.run_turn(request, tool_choice="required"), approve)
        assert isinstance(steps[-1], TurnDone), steps[-1]
        runs += of(steps, ToolRan)

    executed = [run for run in runs if run.outcome == "executed"]
    assert executed, "the forced first step must have run at least one call"
    for run in executed:
        rows = world.audit.entries(call_id=run.call.id)
        assert [row.outcome for row in rows] == ["proposed", "executed"]
        assert rows[0].decision == "allow"
        assert rows[0].ruling.decider in (Decider.RULE, Decider.USER)
        if rows[0].ruling.decider is Decider.USER:
            assert run.call.name in asked
    audited_calls = {row.call_id for row in world.audit.entries()}
    assert {run.call.id for run in runs} <= audited_calls
    assert world.intents.reconcile() == []
