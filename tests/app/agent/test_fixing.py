"""Arguments the user can correct become a question, not a refusal: the field is named in plain
words, an edit is examined from the start like a proposal and ruled on by the gate, a denial
refuses. A call no edit could save (an unknown tool, a path outside every grant) is still
refused outright, before any question."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hearth.agent import AgentConfig, AllowOnce, Answer, ConsentAsked, Deny, EditArguments, ToolRan
from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.consent import Rule
from hearth.ruling import Reason
from hearth.tools import ArgumentProblem
from tests.app.agent.kit import World, drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin

RELATIVE = "'Documents/x.txt' is not a full path; full paths start with /"


def fix_with(arguments: dict[str, Any], then: Answer | None = None) -> Callable[..., Answer]:
    """Correct a question about arguments with `arguments`; answer any other with `then`."""

    def answer(step: ConsentAsked) -> Answer:
        if step.request.problems:
            return EditArguments(arguments)
        return then or AllowOnce()

    return answer


def write_turn(
    files: FilesConnector,
    path: str,
    answer: Callable[..., Answer],
    rules: list[Rule] | None = None,
    *,
    interactive: bool = True,
) -> tuple[Assistant, list[Any]]:
    call = ("files.write_text", {"path": path, "text": "hello"})
    assistant = Assistant.open(
        ScriptedModel([Reply(calls=[call]), Reply("Done.")]),
        plugins=[FilesPlugin(files)],
        entry_points=False,
        start_connectors=False,
    )
    for rule in rules or []:
        assistant.allow(rule)
    session = assistant.session(interactive=interactive, config=AgentConfig(tool_budget=100_000))
    return assistant, drive(session.run_turn("write hello to x.txt"), answer)


def test_a_relative_path_is_put_to_the_user_in_plain_words_and_their_fix_runs(
    files: FilesConnector, documents: Path
) -> None:
    target = str(documents / "x.txt")
    assistant, steps = write_turn(
        files, "Documents/x.txt", fix_with({"path": target, "text": "hello"})
    )
    fix, question = (step.request for step in of(steps, ConsentAsked))
    assert fix.problems == (ArgumentProblem("path", RELATIVE),)
    assert fix.durations == () and fix.preview is None
    # The correction is examined again and ruled on by the gate: a write asks.
    assert question.problems == () and question.verdict.cause is Reason.NEEDS_APPROVAL
    assert question.call.arguments["path"] == target
    assert question.edited_from == {"path": "Documents/x.txt", "text": "hello"}
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "executed" and (documents / "x.txt").read_text() == "hello"
    assert ran.provenance.edited_from == {"path": "Documents/x.txt", "text": "hello"} | {
        "overwrite": False
    }
    assert dict(ran.provenance.filled) == {"overwrite": False}
    row = assistant.audit.entries(call_id=ran.call.id)[0]
    assert row.arguments["path"] == target and row.proposed_arguments["path"] == "Documents/x.txt"
    assistant.close()


def test_denying_the_correction_refuses_the_call_and_tells_the_model_why(
    files: FilesConnector, documents: Path
) -> None:
    assistant, steps = write_turn(files, "Documents/x.txt", lambda _: Deny("the user said no"))
    assert len(of(steps, ConsentAsked)) == 1
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and ran.ruling.reason is Reason.DENIED
    assert ran.result == "Denied: the user said no"
    assert "relative paths are refused" in ran.observation
    assert not (documents / "x.txt").exists()
    assistant.close()


def test_a_correction_that_still_cannot_be_used_is_asked_about_again(
    files: FilesConnector, documents: Path
) -> None:
    edits = iter(
        [{"path": "~/x.txt", "text": "hello"}, {"path": str(documents / "x.txt"), "text": "hello"}]
    )

    def answer(step: ConsentAsked) -> Answer:
        return EditArguments(next(edits)) if step.request.problems else AllowOnce()

    assistant, steps = write_turn(files, "Documents/x.txt", answer)
    first, second, _ = (step.request for step in of(steps, ConsentAsked))
    assert first.problems[0].words == RELATIVE
    tilde = "'~/x.txt' starts with ~; write the full path instead, starting with /"
    assert second.problems == (ArgumentProblem("path", tilde),)
    assert (documents / "x.txt").read_text() == "hello"
    assistant.close()


def test_a_correction_is_ruled_on_by_the_gate_in_its_one_spelling(
    files: FilesConnector, documents: Path
) -> None:
    private = documents / "Private"
    private.mkdir()
    deny = Rule.create("files.*", "deny", now=time.time(), scope=str(private))
    escaped = f"{documents}/\\u0050rivate/x.txt"  # "Private", as the files tools read it
    assistant, steps = write_turn(
        files, "Private/x.txt", fix_with({"path": escaped, "text": "hello"}), [deny]
    )
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and ran.ruling.reason is Reason.RULE_DENIES
    assert not (private / "x.txt").exists()
    assistant.close()


def test_a_path_outside_every_grant_is_refused_outright_once(
    files: FilesConnector, documents: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "Elsewhere"
    elsewhere.mkdir()
    assistant, steps = write_turn(files, str(elsewhere / "x.txt"), lambda _: AllowOnce())
    assert of(steps, ConsentAsked) == []
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "invalid" and ran.ruling.reason is Reason.CANNOT_RUN
    assert "outside the folders you granted" in ran.ruling.wording
    assistant.close()


def test_without_anyone_to_ask_a_call_to_correct_is_refused(
    files: FilesConnector, documents: Path
) -> None:
    assistant, steps = write_turn(
        files, "Documents/x.txt", lambda _: AllowOnce(), interactive=False
    )
    assert of(steps, ConsentAsked) == []
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "invalid" and ran.ruling.reason is Reason.INVALID_ARGUMENTS
    assert ran.result.startswith("Error:") and "relative paths are refused" in ran.result
    assistant.close()


def test_arguments_outside_the_signature_are_marked_in_plain_words_and_can_be_fixed() -> None:
    world = World()
    model = ScriptedModel(
        [
            Reply(calls=[("volume_set", {"setting": "volume", "level": 900})]),
            Reply("Set."),
        ]
    )
    answer = fix_with({"setting": "volume", "level": 50})
    steps = drive(world.session(model).run_turn("volume 900"), answer)
    fix = of(steps, ConsentAsked)[0].request
    assert fix.problems == (ArgumentProblem("level", "900 is too high: level must be at most 100"),)
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "executed" and world.machine.volume == 50


def test_allowing_a_call_that_must_be_corrected_does_not_run_it() -> None:
    world = World()
    model = ScriptedModel(
        [
            Reply(calls=[("volume_set", {"setting": "volume", "level": 900})]),
            Reply("Sorry."),
        ]
    )
    steps = drive(world.session(model).run_turn("volume 900"), lambda _: AllowOnce())
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and ran.ruling.reason is Reason.INVALID_ARGUMENTS
    assert world.machine.volume == 40


@pytest.mark.parametrize("interactive", [True, False])
def test_an_unknown_tool_is_refused_outright_without_a_question(interactive: bool) -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("format_disk", {})], unchecked=True), Reply("Ok.")])
    session = world.session(model, interactive=interactive)
    steps = drive(session.run_turn("wipe everything"), lambda _: AllowOnce())
    assert of(steps, ConsentAsked) == []
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "invalid" and ran.ruling.reason is Reason.UNKNOWN_TOOL
