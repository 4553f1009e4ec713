"""`hearth.Session`: a script drives the real agent, gate and files connector; every question
goes to its approver, which sees what the call would do and why Hearth asks."""

from __future__ import annotations

from pathlib import Path

import pytest

import hearth
from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.generation import GenerationDone, GenerationSettings
from hearth.messages import Message
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin


def session(
    files: FilesConnector, replies: list[Reply], approve: hearth.Approver
) -> hearth.Session:
    assistant = Assistant.open(
        plugins=[FilesPlugin(files)], entry_points=False, start_connectors=False
    )
    return hearth.Session(ScriptedModel(replies), approve=approve, assistant=assistant)


def reading(documents: Path) -> list[Reply]:
    return [
        Reply(calls=[("files.read", {"path": str(documents / "budget.txt")})]),
        Reply(text="The review is on Friday."),
    ]


def test_the_approver_sees_the_call_and_lets_it_run(files: FilesConnector, documents: Path) -> None:
    seen: list[hearth.Proposal] = []

    def approve(proposal: hearth.Proposal) -> bool:
        seen.append(proposal)
        return True

    with session(files, reading(documents), approve) as script:
        turn = script.ask("Read the budget note in my files")
    [proposal] = seen
    assert (proposal.tool, proposal.effect) == ("files.read", "read")
    assert proposal.arguments == {"path": str(documents / "budget.txt")}
    assert proposal.reason == "reading needs your permission until you allow a scope for it"
    [call] = turn.calls
    assert call["outcome"] == "executed" and call["asked"] is True
    assert "quarterly budget review" in call["result"]
    assert turn.answer == "The review is on Friday." and turn.stop_reason == "end"


def test_no_from_the_approver_or_a_failing_approver_refuses(
    files: FilesConnector, documents: Path
) -> None:
    with session(files, reading(documents), lambda _: False) as script:
        [call] = script.ask("Read the budget note in my files").calls
    assert call["outcome"] == "denied" and "approver said no" in call["decision"]["reason"]

    def broken(_: hearth.Proposal) -> bool:
        raise RuntimeError("oops")

    with session(files, reading(documents), broken) as script:
        [call] = script.ask("Read the budget note in my files").calls
    assert call["outcome"] == "denied" and "RuntimeError: oops" in call["decision"]["reason"]


def test_a_truthy_answer_that_is_not_true_still_refuses(
    files: FilesConnector, documents: Path
) -> None:
    with session(files, reading(documents), lambda _: "yes") as script:  # type: ignore[arg-type,return-value]
        [call] = script.ask("Read the budget note in my files").calls
    assert call["outcome"] == "denied"


def test_an_allow_rule_runs_without_asking(files: FilesConnector, documents: Path) -> None:
    def never(_: hearth.Proposal) -> bool:
        raise AssertionError("the rule should have decided")

    with session(files, reading(documents), never) as script:
        script.allow("files.read", str(documents))
        [call] = script.ask("Read the budget note in my files").calls
    assert call["outcome"] == "executed" and call["decision"]["by"] == "rule"


def test_an_approver_is_required() -> None:
    with pytest.raises(TypeError, match="approve must be a function"):
        hearth.Session(ScriptedModel([]), approve=None)  # type: ignore[arg-type]


@pytest.mark.model
def test_a_script_runs_a_turn_on_a_real_model(test_gguf: Path) -> None:
    with hearth.Session(test_gguf, approve=lambda _: False, max_tokens=12, think=False) as script:
        turn = script.ask("Say hello.")
    assert turn.answer and turn.stop_reason in ("end", "max_tokens")


def test_a_loaded_model_is_shared_by_sessions_and_stays_the_callers(
    files: FilesConnector, documents: Path, test_gguf: Path
) -> None:
    model = hearth.load_model(test_gguf, n_ctx=2048)
    try:
        for _ in range(2):
            with hearth.Session(
                model,
                approve=lambda proposal: proposal.effect == "read",
                max_tokens=8,
                plugins=[FilesPlugin(files)],
                entry_points=False,
            ) as script:
                turn = script.ask("Say hello.")
                assert not turn.error
                assert turn.stats["model_calls"] == 1 and turn.stats["prompt_tokens"][0] > 0
                assert {tool.name.split(".")[0] for tool in script.assistant.tools} == {"files"}
        # Still open: a session closes only a model it loaded itself.
        events = list(
            model.generate([Message.user("Hi")], settings=GenerationSettings(max_tokens=4))
        )
        assert isinstance(events[-1], GenerationDone)
    finally:
        model.close()
