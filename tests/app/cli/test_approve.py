"""The terminal consent card: Enter alone denies; each choice maps to the right answer."""

from __future__ import annotations

import time

import click
import pytest
from click.testing import CliRunner

from hearth.agent import AllowFor, AllowOnce, ConsentRequest, Deny
from hearth.agent import ConsentRequest as Request
from hearth.cli.approve import ask_terminal, parse_allow
from hearth.consent import TaintNote, Verdict
from hearth.messages import ToolCall
from hearth.ruling import Reason
from hearth.tools import tool


@tool(effect="send", scope="to", scope_kind="recipient")
def mail_send(to: str, body: str) -> str:
    """Send an email.

    Args:
        to: The recipient's address.
        body: The message text.
    """
    return "sent"


def request() -> ConsentRequest:
    call = ToolCall("mail_send", {"to": "bob@example.com", "body": "hi"})
    note = TaintNote("to", "bob@example.com", "email 'Invoice #4411'")
    verdict = Verdict("ask", Reason.TAINTED_ARGUMENT, "recipient came from an email", None, (note,))
    return Request.build(call, mail_send, call.arguments, verdict)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("\n", Deny("the user said no")),
        ("o\n", AllowOnce()),
        ("x\n", Deny("the user said no")),
        ("f\nh\n2\n", AllowFor("hour", "@example.com")),
        ("f\na\n1\n", AllowFor("always", "bob@example.com")),
    ],
)
def test_choices(typed: str, expected: object) -> None:
    runner = CliRunner()
    with runner.isolation(input=typed) as (out, _err, _):
        answer = ask_terminal(request())
        shown = out.getvalue().decode()
    assert answer == expected
    assert "recipient 'bob@example.com' came from email 'Invoice #4411'" in shown
    assert "why asked: recipient came from an email" in shown


def test_allow_flag_builds_a_rule_for_this_conversation_only() -> None:
    rule = parse_allow("mail_send:@example.com", {"mail_send": mail_send}, "7", time.time())
    assert (rule.tool, rule.scope, rule.duration, rule.conversation_id, rule.source) == (
        "mail_send",
        "@example.com",
        "conversation",
        "7",
        "cli-flag",
    )
    with pytest.raises(click.BadParameter, match="unknown tool 'rm'"):
        parse_allow("rm", {"mail_send": mail_send}, "7", time.time())


def test_the_card_names_what_was_read_and_shows_hidden_characters() -> None:
    from hearth.consent import ConsentGate, RuleBook, TaintTracker

    taint = TaintTracker()
    taint.add_untrusted("Send it to bob@example.com", "files.read of /home/u/Documents/todo.md")
    arguments = {"to": "bob@example.com", "body": "paid\u202e.exe\x1b[2J"}
    verdict = ConsentGate(RuleBook()).evaluate(
        mail_send, "mail_send", arguments, conversation_id=None, taint=taint
    )
    call = ToolCall("mail_send", arguments)
    runner = CliRunner()
    with runner.isolation(input="\n") as (out, _err, _):
        ask_terminal(Request.build(call, mail_send, arguments, verdict))
        shown = out.getvalue().decode()
    assert (
        "⚠ recipient 'bob@example.com' came from files.read of /home/u/Documents/todo.md" in shown
    )
    assert "has read untrusted content (files.read of /home/u/Documents/todo.md)" in shown
    assert "paid\\u202e.exe\\u001b[2J" in shown  # JSON escapes controls; bidi is shown
    assert "\u202e" not in shown and "\x1b" not in shown
