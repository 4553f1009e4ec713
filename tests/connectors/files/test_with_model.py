"""The files connector driven by the real SmolLM2 model through the whole agent path."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.agent import AgentConfig, AllowOnce, Answer, ConsentAsked, Deny, ToolRan, TurnDone
from hearth.assistant import Assistant
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.engine.llama import LlamaCppModel
from hearth.generation import GenerationSettings
from tests.app.agent.kit import drive, fixed_clock, of
from tests.connectors.files.kit import FilesPlugin

pytestmark = pytest.mark.model


def test_real_model_searches_the_granted_folder(
    smol: LlamaCppModel, connector: FilesConnector, library: FileLibrary, documents: Path
) -> None:
    for root in library.roots():
        library.scanner.scan(root)
    before = sorted(str(p) for p in documents.rglob("*"))
    assistant = Assistant.open(smol, plugins=[FilesPlugin(connector)], entry_points=False)
    settings = GenerationSettings(max_tokens=160, seed=5, temperature=0.2)
    session = assistant.session(
        config=AgentConfig(settings=settings, max_steps=3, clock=fixed_clock)
    )

    def reads_only(step: ConsentAsked) -> Answer:
        tool = step.request.tool
        return AllowOnce() if tool.effect == "read" else Deny("this test only reads")

    try:
        steps = drive(
            session.run_turn("Search my files for the heron plan.", tool_choice="required"),
            reads_only,
        )
        assert isinstance(steps[-1], TurnDone), steps[-1]
        runs = of(steps, ToolRan)
        assert runs and all(run.call.name.startswith("files.") for run in runs)
        for run in runs:
            rows = assistant.audit.entries(call_id=run.call.id)
            assert rows and rows[0].tool == run.call.name
            print(run.call.name, run.call.arguments, run.outcome, run.observation[:200])
    finally:
        assistant.db.close()  # the session's model is shared; only the store is closed
    # Whatever the model tried, writes were denied and the folder is as it was.
    assert sorted(str(p) for p in documents.rglob("*")) == before
