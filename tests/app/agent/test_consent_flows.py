"""Issue 11 in the core: what ran is shown and audited, every proposal has a row, a grant covers
the call or says why not, calls that cannot run are refused before any card, and the countdown
can pause."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

import hearth.agent.steps as agent_steps
from hearth.agent import (
    AgentConfig,
    AllowFor,
    CallMalformed,
    ConsentAsked,
    ConsentRequest,
    Deny,
    EditArguments,
    Step,
    ToolRan,
)
from hearth.assistant import Assistant
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.consent import Verdict, fenced_source, unfence
from hearth.messages import CancelToken, ToolCall
from hearth.ruling import Reason
from tests.app.agent.kit import World, drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "Documents"
    (folder / "projects").mkdir(parents=True)
    (folder / "notes.txt").write_text("Remember the budget review.\n")
    (folder / "projects" / "plan.md").write_text("# Plan\n")
    return folder


@pytest.fixture
def files(documents: Path) -> Iterator[FilesConnector]:
    connector = FilesConnector(FileLibrary(poll_seconds=0.5))
    connector.grant(documents)
    yield connector
    connector.close()


def assistant_with(files: FilesConnector, *replies: Reply) -> Assistant:
    return Assistant.open(
        ScriptedModel(list(replies)),
        plugins=[FilesPlugin(files)],
        entry_points=False,
        start_connectors=False,
    )


def asked(steps: list[Step]) -> list[ConsentRequest]:
    return [step.request for step in of(steps, ConsentAsked)]


# Point 1: "Allow for…" on a call with no scope value.


def test_allow_for_on_a_scopeless_files_search_makes_a_rule_and_runs(files: FilesConnector) -> None:
    assistant = assistant_with(
        files,
        Reply(calls=[("files.search", {"query": "budget"})]),
        Reply("Found it."),
        Reply(calls=[("files.search", {"query": "plan"})]),
        Reply("Again."),
    )
    session = assistant.session()
    steps = drive(session.run_turn("search my files for budget"), lambda _: AllowFor("hour"))
    (request,) = asked(steps)
    assert request.unscoped == "any granted folder" and request.no_grant == ""
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "executed" and ran.ruling.reason is Reason.ALLOWED_FOR
    (rule,) = [r for r in assistant.rules.all() if r.tool == "files.search"]
    assert rule.scope is None and rule.duration == "hour"
    again = drive(session.run_turn("search my files for plan"), None)
    assert asked(again) == [] and of(again, ToolRan)[0].ruling.by_rule
    assistant.close()


def test_a_grant_that_cannot_be_saved_refuses_the_call_on_the_record(
    files: FilesConnector, documents: Path
) -> None:
    assistant = assistant_with(
        files,
        Reply(calls=[("files.read", {"path": str(documents / "notes.txt")})]),
        Reply("Ok."),
    )
    # A scope that does not cover the call: applying the answer fails after the user answered.
    answer = AllowFor("hour", scope=str(documents / "projects"))
    steps = drive(assistant.session().run_turn("read my notes file"), lambda _: answer)
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and ran.ruling.reason is Reason.GRANT_FAILED
    assert "does not cover this call" in ran.ruling.wording and ran.arguments is None
    (row,) = assistant.audit.entries(call_id=ran.call.id)
    assert row.ruling.reason is Reason.GRANT_FAILED and row.outcome == "denied"
    assert [r for r in assistant.rules.all() if r.tool == "files.read"] == []
    assistant.close()


# Point 3 and the `ToolRan.arguments` contract: the proposal and what ran, on every row.


def test_an_edited_call_shows_and_audits_both_argument_sets() -> None:
    world = World()
    world.machine.notes.clear()
    proposed = {"title": "milk", "text": "buy milk"}
    model = ScriptedModel([Reply(calls=[("notes_add", proposed)]), Reply("Saved.")])
    edit = EditArguments({"title": "milk", "text": "buy oat milk"})
    steps = drive(world.session(model).run_turn("remember to buy milk, note it"), lambda _: edit)
    (ran,) = of(steps, ToolRan)
    assert ran.call.arguments == proposed
    assert ran.arguments == {"title": "milk", "text": "buy oat milk"}
    rows = world.audit.entries(call_id=ran.call.id)
    assert [r.outcome for r in rows] == ["proposed", "executed"]
    for row in rows:
        assert row.proposed_arguments == proposed
        assert row.arguments == {"title": "milk", "text": "buy oat milk"}


def test_every_kind_of_proposal_has_a_row_with_its_proposal() -> None:
    world = World()
    model = ScriptedModel(
        [
            Reply(calls=[("format_disk", {"all": True})]),  # malformed
            Reply(calls=[("wifi_set", {"enabled": False})], unchecked=True),  # unoffered
            Reply(calls=[("volume_set", {"setting": "volume", "level": 10})]),  # interrupted
            Reply("Done."),
        ]
    )
    interrupted = Deny("the user interrupted the question")
    drive(world.session(model).run_turn("make the sound louder"), lambda _: interrupted)
    rows = world.audit.entries()
    assert [(r.tool, r.ruling.reason) for r in rows] == [
        ("invalid_tool_call", Reason.MALFORMED),
        ("wifi_set", Reason.NOT_OFFERED),
        ("volume_set", Reason.DENIED),
    ]
    assert rows[1].proposed_arguments == {"enabled": False}
    assert rows[2].ruling.wording == "the user interrupted the question"
    assert rows[2].proposed_arguments == {"setting": "volume", "level": 10}


# Point 7: a malformed call is a step, before the model is told.


def test_a_malformed_call_is_a_step_before_the_model_is_told() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("format_disk", {"all": True})]), Reply("Sorry.")])
    steps = drive(world.session(model).run_turn("make the sound louder"), None)
    (malformed,) = of(steps, CallMalformed)
    assert "format_disk" in malformed.raw and "unknown tool 'format_disk'" in malformed.reason
    assert len(model.requests) == 2  # then the model was told, and answered


# Point 8: a call that cannot run is refused before anyone is asked.


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("files.read", {"path": "/nowhere/at/all.txt"}),
        ("files.move", {"sources": ["{documents}/missing.txt"], "destination": "{documents}"}),
    ],
)
def test_a_call_that_cannot_run_is_refused_before_any_card(
    files: FilesConnector, documents: Path, name: str, arguments: dict[str, object]
) -> None:
    filled = {
        key: [v.format(documents=documents) for v in value]
        if isinstance(value, list)
        else str(value).format(documents=documents)
        for key, value in arguments.items()
    }
    assistant = assistant_with(files, Reply(calls=[(name, filled)]), Reply("Ok."))
    steps = drive(assistant.session().run_turn("read, search or move my files"), None)
    assert asked(steps) == []
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "invalid" and ran.ruling.reason is Reason.CANNOT_RUN
    # The world's words about the call (names that are there) reach the model fenced.
    assert unfence(ran.observation).startswith("Error: this call cannot run:")
    assert fenced_source(ran.observation) is not None
    (row,) = assistant.audit.entries(call_id=ran.call.id)
    assert row.ruling.reason is Reason.CANNOT_RUN and row.outcome == "denied"
    assert (documents / "notes.txt").exists()
    assistant.close()


@pytest.mark.parametrize(
    ("name", "arguments", "argument"),
    [
        ("files.read", {"path": "notes.txt"}, "path"),
        ("files.search", {"query": "x", "folder": "Documents"}, "folder"),
        (
            "files.move",
            {"sources": ["{documents}/notes.txt"], "destination": "files.tmp/"},
            "destination",
        ),
    ],
)
def test_a_relative_path_is_put_to_the_user_to_correct_never_to_the_gate(
    files: FilesConnector, documents: Path, name: str, arguments: dict[str, object], argument: str
) -> None:
    filled = {
        key: [v.format(documents=documents) for v in value] if isinstance(value, list) else value
        for key, value in arguments.items()
    }
    assistant = assistant_with(files, Reply(calls=[(name, filled)]), Reply("Ok."))
    steps = drive(assistant.session().run_turn("read, search or move my files"), None)
    (request,) = asked(steps)
    (problem,) = request.problems
    assert problem.argument == argument and "is not a full path" in problem.words
    (ran,) = of(steps, ToolRan)  # "Allow once" cannot run it as it stands
    assert ran.outcome == "denied" and ran.ruling.reason is Reason.INVALID_ARGUMENTS
    assert (documents / "notes.txt").exists()
    assistant.close()


def test_a_call_that_can_run_still_asks(files: FilesConnector, documents: Path) -> None:
    move = {"sources": [str(documents / "notes.txt")], "destination": str(documents / "projects")}
    assistant = assistant_with(files, Reply(calls=[("files.move", move)]), Reply("Ok."))
    steps = drive(assistant.session().run_turn("move my notes file"), lambda _: Deny())
    (request,) = asked(steps)
    assert request.preview is not None
    assert request.preview.startswith(f"Move 1 item from {documents} to {documents / 'projects'}")
    assistant.close()


# Point 9 contracts: the countdown can pause, and the executor waits on it.


def _request(timeout_s: float) -> ConsentRequest:
    world = World()
    tool = world.registry.get("notes_add")
    assert tool is not None
    call = ToolCall("notes_add", {"title": "t", "text": "x"})
    verdict = Verdict("ask", Reason.NEEDS_APPROVAL, "needs approval")
    return ConsentRequest.build(call, tool, call.arguments, verdict, timeout_s=timeout_s)


def test_the_countdown_does_not_count_paused_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # The request's clock moves only when the test moves it: exact, however busy the machine.
    now = [1000.0]
    monkeypatch.setattr(agent_steps, "time", SimpleNamespace(monotonic=lambda: now[0]))
    request = _request(10.0)
    assert request.timeout_s == 10.0 and request.remaining() == 10.0
    now[0] += 1.0
    assert request.remaining() == 9.0
    request.pause()
    now[0] += 5.0
    assert request.remaining() == 9.0
    request.resume()
    now[0] += 0.5
    assert request.remaining() == 8.5


def test_the_executor_waits_while_the_card_is_paused() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("notes_add", {"title": "t", "text": "x"})]), Reply("Ok.")])
    session = world.session(model, config=AgentConfig(consent_timeout_s=0.3))
    session.executor.asker.timeout = 0.3  # what Assistant.session passes from the config
    steps = session.run_turn("save a note", CancelToken())
    for step in steps:
        if isinstance(step, ConsentAsked):
            assert step.request.timeout_s == 0.3
            step.request.pause()
            time.sleep(0.6)  # past the timeout, but paused: still waiting
            step.request.resume()
            step.request.answer(EditArguments({"title": "t", "text": "y"}))
        if isinstance(step, ToolRan):
            assert step.outcome == "executed" and step.arguments == {"title": "t", "text": "y"}
            break
    else:
        pytest.fail("the call never ran")


def test_the_configured_consent_timeout_denies_an_unanswered_call(
    files: FilesConnector, documents: Path
) -> None:
    assistant = assistant_with(
        files,
        Reply(calls=[("files.read", {"path": str(documents / "notes.txt")})]),
        Reply("Ok."),
    )
    session = assistant.session(config=AgentConfig(consent_timeout_s=0.4))
    steps = list(session.run_turn("read my notes file", CancelToken()))  # nobody answers
    (request,) = asked(steps)
    assert request.timeout_s == 0.4 and request.remaining() == 0
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and ran.ruling.reason is Reason.NO_ANSWER
    (row,) = assistant.audit.entries(call_id=ran.call.id)
    assert row.ruling.reason is Reason.NO_ANSWER
    assistant.close()
