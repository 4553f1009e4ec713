"""The agent loop, with a scripted model over real tools, a real gate and a real database."""

from __future__ import annotations

from hearth.agent import (
    AllowOnce,
    AnswerDelta,
    ConsentAsked,
    Deny,
    EditArguments,
    ToolProposed,
    ToolRan,
    TurnDone,
    TurnFailed,
)
from hearth.errors import ContextOverflow
from hearth.messages import CancelToken, Message
from hearth.ruling import Decider, Reason
from tests.app.agent.kit import World, drive, of
from tests.app.agent.scripted import Reply, ScriptedModel


def test_a_plain_answer_streams_and_ends_the_turn() -> None:
    world = World()
    model = ScriptedModel([Reply("Hello there!")])
    steps = drive(world.session(model).run_turn("hi"), None)
    assert "".join(s.text for s in of(steps, AnswerDelta)).strip() == "Hello there!"
    done = of(steps, TurnDone)[0]
    assert done.message.content == "Hello there!" and done.stop_reason == "end"
    assert model.requests[0].tools == []  # nothing fits "hi": no tool is forced on the model


def test_only_fitting_tools_are_offered_and_counted() -> None:
    world = World()
    model = ScriptedModel([Reply("Noted.")])
    steps = drive(world.session(model).run_turn("Make the sound louder please"), None)
    assert model.requests[0].tools == ["volume_set"]
    assert of(steps, TurnDone)[0].stats.tools_offered == [1]


def test_the_step_stream_of_a_tool_turn() -> None:
    world = World()
    world.allow("volume_set", {"setting": "volume", "level": 30}, scope="volume:0-50")
    model = ScriptedModel(
        [Reply(calls=[("volume_set", {"setting": "volume", "level": 30})]), Reply("Done.")]
    )
    steps = drive(world.session(model).run_turn("volume to 30"), None)
    kinds = [type(s).__name__ for s in steps if not isinstance(s, AnswerDelta)]
    assert kinds == ["ToolsOffered", "ToolProposed", "ToolRan", "TurnDone"]
    ran = of(steps, ToolRan)[0]
    assert ran.outcome == "executed" and ran.ruling.by_rule and ran.ruling.rule_id
    assert world.machine.volume == 30
    outcomes = [e.outcome for e in world.audit.entries(call_id=ran.call.id)]
    assert outcomes == ["proposed", "executed"]


def test_invalid_arguments_go_back_to_the_model_and_the_loop_goes_on() -> None:
    world = World()
    world.allow("volume_set", {"setting": "volume", "level": 20}, scope="volume:0-100")
    model = ScriptedModel(
        [
            Reply(calls=[("volume_set", {"setting": "volume", "level": 500})]),
            Reply(calls=[("volume_set", {"setting": "volume", "level": 20})]),
            Reply("Set to 20."),
        ]
    )
    steps = drive(world.session(model).run_turn("set the volume to max"), None)
    feedback = model.requests[1].messages[-1]
    assert feedback.role == "tool" and "level" in feedback.content
    assert "less than or equal to 100" in feedback.content  # what to change, for the model
    assert world.machine.volume == 20
    assert of(steps, TurnDone)[0].message.content == "Set to 20."


def test_arguments_that_slip_past_the_engine_are_refused_by_the_executor() -> None:
    # With someone to ask, they may correct it instead (tests/app/agent/test_fixing.py).
    world = World()
    model = ScriptedModel(
        [
            Reply(calls=[("volume_set", {"setting": "volume", "level": 900})]),
            Reply("Sorry."),
        ]
    )
    steps = drive(world.session(model, interactive=False).run_turn("volume 900"), None)
    ran = of(steps, ToolRan)[0]
    assert ran.outcome == "invalid" and ran.observation.startswith("Error:")
    assert world.machine.volume == 40
    assert [e.decision for e in world.audit.entries()] == ["deny"]


def test_an_unknown_tool_is_an_observation_not_a_crash() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("format_disk", {})], unchecked=True), Reply("Ok.")])
    steps = drive(world.session(model).run_turn("wipe everything"), None)
    ran = of(steps, ToolRan)[0]
    assert ran.outcome == "invalid" and "no tool named 'format_disk'" in ran.observation
    assert of(steps, TurnDone)


def test_the_same_call_three_times_ends_the_turn_with_an_explanation() -> None:
    world = World()
    call = ("notes_add", {"title": "a", "text": "b"})
    model = ScriptedModel([Reply(calls=[call])] * 3 + [Reply("never reached")])
    steps = drive(world.session(model).run_turn("remember a note: b"), lambda _: AllowOnce())
    done = of(steps, TurnDone)[0]
    assert done.stop_reason == "stopped" and "notes_add" in done.message.content
    assert len(of(steps, ToolRan)) == 2
    assert len(model.replies) == 1


def test_wifi_off_send_failure_leads_to_enabling_wifi_and_retrying() -> None:
    world = World()
    world.allow("mail_send", {"to": "bob@example.com", "subject": "s", "body": "b"})
    send = ("mail_send", {"to": "bob@example.com", "subject": "Report", "body": "Attached."})
    model = ScriptedModel(
        [
            Reply(calls=[send]),
            Reply(reasoning="Wi-Fi is off; turn it on.", calls=[("wifi_set", {"enabled": True})]),
            Reply(calls=[send]),
            Reply("Sent the report to Bob."),
        ]
    )
    answered = []

    def approve(step: ConsentAsked) -> AllowOnce:
        answered.append(step.request.call.name)
        return AllowOnce()

    steps = drive(world.session(model).run_turn("email the report to bob"), approve)
    assert [r.outcome for r in of(steps, ToolRan)] == ["failed", "executed", "executed"]
    assert "Wi-Fi is off" in of(steps, ToolRan)[0].observation
    assert "wifi_set" in model.requests[1].tools  # brought in by the failure's text
    # System changes ask. The mail rule covered the first send, but once tool output has been
    # read in a conversation, every send asks.
    assert answered == ["wifi_set", "mail_send"]
    assert world.machine.wifi and world.machine.sent[0]["to"] == "bob@example.com"
    states = sorted(i.state for i in world.intents.reconcile())
    assert states == []  # nothing left in doubt
    assert of(steps, TurnDone)[0].message.content == "Sent the report to Bob."


def test_denied_by_the_user_never_runs_and_the_model_is_told() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("wifi_set", {"enabled": False})]), Reply("Okay.")])
    steps = drive(world.session(model).run_turn("turn wifi off"), lambda _: Deny("not now"))
    ran = of(steps, ToolRan)[0]
    assert ran.outcome == "denied" and ran.observation == "Denied: not now"
    assert world.machine.wifi is False
    assert [(e.ruling.decider, e.ruling.reason) for e in world.audit.entries()] == [
        (Decider.USER, Reason.DENIED)
    ]


def test_edited_arguments_are_what_runs() -> None:
    world = World()
    model = ScriptedModel(
        [Reply(calls=[("notes_add", {"title": "x", "text": "draft"})]), Reply("Saved.")]
    )
    edit = EditArguments({"title": "Shopping", "text": "eggs"})
    steps = drive(world.session(model).run_turn("note: draft"), lambda _: edit)
    assert world.machine.notes == {"Shopping": "eggs"}
    assert of(steps, ToolRan)[0].ruling.reason is Reason.EDITED
    assert world.audit.entries()[0].arguments == {"title": "Shopping", "text": "eggs"}


def test_headless_runs_fail_closed_without_a_rule() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("wifi_set", {"enabled": True})]), Reply("Could not.")])
    steps = drive(world.session(model, interactive=False).run_turn("turn on wifi"), None)
    ran = of(steps, ToolRan)[0]
    assert ran.outcome == "denied" and "headless" in ran.observation
    assert not world.machine.wifi
    assert not of(steps, ConsentAsked)
    ruling = world.audit.entries()[0].ruling
    assert ruling.fail_closed and ruling.reason is Reason.HEADLESS


def test_stop_while_waiting_for_consent_denies_and_ends_the_turn() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("wifi_set", {"enabled": True})])])
    cancel = CancelToken()
    steps = []
    for step in world.session(model).run_turn("wifi on", cancel):
        steps.append(step)
        if isinstance(step, ConsentAsked):
            cancel.cancel()  # the user pressed Stop instead of answering
    assert of(steps, ToolRan)[0].outcome == "denied"
    assert of(steps, TurnDone)[0].stop_reason == "cancelled"
    assert not world.machine.wifi


def test_engine_errors_end_the_turn_as_turn_failed() -> None:
    world = World()

    def overflow(_: list[Message]) -> Reply:
        raise ContextOverflow("too long")

    steps = drive(world.session(ScriptedModel([overflow])).run_turn("hi"), None)
    assert isinstance(steps[-1], TurnFailed) and "too long" in str(steps[-1].error)


def test_the_conversation_is_persisted_as_it_goes() -> None:
    world = World()
    world.allow("volume_set", {"setting": "volume", "level": 10}, scope="volume:0-50")
    model = ScriptedModel(
        [Reply(calls=[("volume_set", {"setting": "volume", "level": 10})]), Reply("Quieter.")]
    )
    session = world.session(model)
    drive(session.run_turn("quieter"), None)
    stored = world.conversations.messages(session.conversation_id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1].tool_calls[0].arguments == {"setting": "volume", "level": 10}


def test_proposals_are_shown_before_they_run() -> None:
    world = World()
    model = ScriptedModel([Reply(calls=[("notes_add", {"title": "t", "text": "x"})]), Reply("ok")])
    order = []
    for step in world.session(model).run_turn("note t: x"):
        if isinstance(step, ToolProposed):
            order.append(("proposed", dict(world.machine.notes)))
        if isinstance(step, ConsentAsked):
            order.append(("asked", dict(world.machine.notes)))
            step.request.answer(AllowOnce())
    assert order == [("proposed", {}), ("asked", {})]
    assert world.machine.notes == {"t": "x"}


def test_a_malformed_call_is_audited_as_refused_and_told_to_the_model() -> None:
    world = World()
    # Checked against the offered tools, "format_disk" does not parse: a malformed call.
    model = ScriptedModel([Reply(calls=[("format_disk", {"all": True})]), Reply("Sorry.")])
    steps = drive(world.session(model).run_turn("make the sound louder"), None)
    assert of(steps, ToolRan) == []
    (row,) = world.audit.entries()
    assert (row.tool, row.decision, row.outcome) == ("invalid_tool_call", "deny", "denied")
    assert row.ruling.fail_closed and row.ruling.reason is Reason.MALFORMED
    assert "format_disk" in row.arguments["raw"]
    told = model.requests[1].messages[-1]
    assert told.role == "tool" and told.tool_call_id == row.call_id
    assert told.content.startswith("Error: that tool call could not be used:")


def test_a_registered_tool_the_step_did_not_offer_is_refused_and_audited() -> None:
    world = World()
    world.allow("wifi_set", {"enabled": True})
    world.machine.wifi = True
    model = ScriptedModel(
        [Reply(calls=[("wifi_set", {"enabled": False})], unchecked=True), Reply("Ok.")]
    )
    steps = drive(world.session(model).run_turn("make the sound louder"), None)
    assert model.requests[0].tools == ["volume_set"]
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "invalid" and world.machine.wifi is True
    assert ran.ruling.fail_closed and ran.ruling.reason is Reason.NOT_OFFERED
    assert (
        ran.observation == "Error: 'wifi_set' was not offered for this step, so it cannot run now"
    )
    rows = world.audit.entries(call_id=ran.call.id)
    assert [(r.decision, r.outcome, r.ruling.reason) for r in rows] == [
        ("deny", "denied", Reason.NOT_OFFERED)
    ]
    assert world.intents.reconcile() == []


def test_a_reopened_conversation_remembers_exactly_what_it_read() -> None:
    world = World()
    world.allow("mail_read", {"subject": "x"})
    world.allow("notes_add", {"title": "t", "text": "x"})
    world.machine.inbox["Q3"] = "Please note that the code is 4411."
    model = ScriptedModel([Reply(calls=[("mail_read", {"subject": "Q3"})]), Reply("Read it.")])
    session = world.session(model, interactive=False)
    drive(session.run_turn("Read the email 'Q3'"), None)
    sources = session.executor.taint.sources
    assert sources == ["mail_read with subject 'Q3'"]

    again = ScriptedModel([Reply(calls=[("notes_add", {"title": "c", "text": "4411"})]), Reply("")])
    reopened = world.session(again, interactive=False, history=session.history)
    assert reopened.executor.taint.sources == sources
    steps = drive(reopened.run_turn("note the code"), None)
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and world.machine.notes == {}
    (row,) = world.audit.entries(call_id=ran.call.id)
    assert [t.source for t in row.taint] == ["mail_read with subject 'Q3'"]
