"""A recipient the address parser refuses is put to the user in plain words, on the argument it
is in; their correction is parsed again and sent through the real SMTP server once allowed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hearth.agent import AllowOnce, Answer, ConsentAsked, Deny, EditArguments, ToolRan
from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.address_words import address_problem
from hearth.connectors.mail.connector import MailConnector
from hearth.tools import ArgumentProblem
from tests.app.agent.kit import of
from tests.app.agent.turns import Turn, scripted_turns
from tests.connectors.mail.kit import MailPlugin

SEND = {"to": ["bob@"], "subject": "Friday", "body": "See you at 8."}


@pytest.fixture
def turn(connector: MailConnector) -> Iterator[Turn]:
    with scripted_turns(MailPlugin(connector)) as run:
        yield run


def correct(arguments: dict[str, Any]) -> Any:
    def answer(step: ConsentAsked) -> Answer:
        return EditArguments(arguments) if step.request.problems else AllowOnce()

    return answer


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("bob@", "'bob@' is missing the part after @"),
        ("@example.com", "'@example.com' is missing the part before @"),
        ("bob", "'bob' has no @; an address looks like name@example.org"),
        ("Bob <bob@>", "'Bob <bob@>' is missing the part after @"),
        ("bob@@example.com", "'bob@@example.com' has more than one @; an address looks like"),
        ("bob@exa mple.com", "'bob@exa mple.com' contains a space; addresses have none"),
        ("a@x.org, b@y.org", "'a@x.org, b@y.org' holds more than one address"),
    ],
)
def test_a_refused_address_is_said_in_plain_words(value: str, words: str) -> None:
    assert address_problem(value).startswith(words)


@pytest.mark.server
def test_a_recipient_without_a_domain_is_marked_and_its_correction_is_sent(
    dovecot: DovecotServer, smtp_server: SmtpServer, turn: Turn
) -> None:
    fixed = {**SEND, "to": ["bob@example.com"]}
    assistant, steps = turn(
        "Tell Bob I'll see him Friday.", ("mail.send", SEND), answer=correct(fixed)
    )
    fix, question = (step.request for step in of(steps, ConsentAsked))
    assert fix.problems == (ArgumentProblem("to", "'bob@' is missing the part after @"),)
    # Corrected, the call is a send like any other: the gate asks, with the whole message.
    assert "To: bob@example.com" in (question.preview or "")
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "executed"
    assert [received.rcpt_tos for received in smtp_server.received] == [["bob@example.com"]]
    row = assistant.audit.entries(call_id=ran.call.id)[0]
    assert row.edited_from is not None and row.edited_from["to"] == ["bob@"]


@pytest.mark.server
def test_a_bad_copy_address_is_marked_on_cc_and_a_denial_sends_nothing(
    dovecot: DovecotServer, smtp_server: SmtpServer, turn: Turn
) -> None:
    send = {**SEND, "to": ["bob@example.com"], "cc": ["carol@"]}
    _, steps = turn("Mail Bob, copy Carol.", ("mail.send", send), answer=lambda _: Deny("no"))
    (fix,) = (step.request for step in of(steps, ConsentAsked))
    assert fix.problems == (ArgumentProblem("cc", "'carol@' is missing the part after @"),)
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "denied" and smtp_server.received == []
