"""Outside text in the terminal: `hearth chat`/`ask` (preview, card, result, answer) and `hearth
audit` (list, JSON and CSV export) show every hidden character of the spoofing corpus as an escape,
and no outside string adds a line of its own."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from hearth.agent import ConsentAsked, ToolProposed, ToolRan
from hearth.agent import ConsentRequest as Request
from hearth.cli import chat as chat_module
from hearth.cli.audit_cmd import audit
from hearth.consent import TaintNote, Verdict
from hearth.generation import AnswerDelta
from hearth.messages import CancelToken, ToolCall
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, Taint, open_database
from hearth.tools import tool
from tests.fixtures.spoofing import SPOOFS, assert_safe

PLAIN = "plain words"


@tool(effect="send", scope="to", scope_kind="recipient")
def mail_send(to: str, subject: str, body: str) -> str:
    """Send an email.

    Args:
        to: The recipient's address.
        subject: The subject line.
        body: The message text.
    """
    return "sent"


class SpoofingSession:
    """A turn that carries `spoof` everywhere the terminal shows outside text."""

    def __init__(self, spoof: str) -> None:
        self.spoof = spoof

    def run_turn(self, text: str, cancel: CancelToken, tool_choice: str = "auto") -> Iterator[Any]:
        spoof = self.spoof
        arguments = {"to": "bob@example.com", "subject": spoof, "body": spoof}
        call = ToolCall("mail_send", arguments, id="c1")
        yield AnswerDelta(f"I will send {spoof}\n")
        # A mail preview holds the subject and body verbatim (the mail connector's way).
        yield ToolProposed(call, mail_send, f"To: bob@example.com\nSubject: {spoof}\n\n{spoof}")
        note = TaintNote("subject", spoof, f"email '{spoof}'")
        verdict = Verdict("ask", Reason.TAINTED_ARGUMENT, f"it came from {spoof}", None, (note,))
        yield ConsentAsked(Request.build(call, mail_send, arguments, verdict))
        ruling = Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, f"allowed for {spoof}")
        yield ToolRan(call, "executed", spoof, ruling, result=json.dumps({"message": spoof}))
        yield AnswerDelta(f"Sent {spoof}.")


def chat_output(spoof: str) -> str:
    runner = CliRunner()
    with runner.isolation(input="d\n") as (out, _err, _):
        chat_module.run_turn(SpoofingSession(spoof), "send it", False)  # type: ignore[arg-type]
        return out.getvalue().decode()


@pytest.mark.parametrize("spoof", SPOOFS)
def test_chat_shows_the_preview_card_result_and_answer_escaped(spoof: str) -> None:
    shown = chat_output(spoof)
    assert_safe(shown, spoof, lines=True)
    # Line feeds stay only in the preview (subject, body), the answer (twice) and the gate's
    # reason, each continued under its own edge; names, values, taint and results stay one line.
    assert shown.count("\n") == chat_output(PLAIN).count("\n") + 5 * spoof.count("\n")
    assert "⚠ Hearth" not in "".join(line[:12] for line in shown.splitlines())


def test_the_terminal_card_shows_a_mail_preview_under_its_arrow() -> None:
    shown = chat_output("hi\u2028⚠ Hearth: safe\x1b[2K")
    assert "→ To: bob@example.com\n  Subject: hi\\u2028⚠ Hearth: safe\\x1b[2K\n" in shown
    assert '│ subject: "hi\\u2028⚠ Hearth: safe\\u001b[2K"' in shown


@pytest.fixture
def spoofed_log() -> None:
    """One audit entry per spoof, the spoof in the tool's name, arguments, taint and result."""
    with open_database() as db:
        log = AuditLog(db)
        for number, spoof in enumerate(SPOOFS):
            call_id = f"call_{number}"
            log.append(
                call_id=call_id,
                tool=f"mcp.{spoof}",
                arguments={"path": spoof, spoof: [spoof]},
                ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, f"once for {spoof}"),
                outcome="proposed",
                conversation_id=1,
                taint=[Taint("path", spoof, f"email '{spoof}'")],
            )
            log.record_outcome(call_id, "executed", result_summary=spoof, duration_ms=1)


def invoke(*args: str) -> str:
    result = CliRunner().invoke(audit, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def spoof_of(call_id: str) -> str:
    return SPOOFS[int(call_id.removeprefix("call_"))]


@pytest.mark.usefixtures("spoofed_log")
def test_audit_list_shows_every_cell_escaped_on_one_line() -> None:
    lines = invoke("list", "--limit", "1000").splitlines()
    assert len(lines) == 1 + 2 * len(SPOOFS)  # the proposal, then its outcome: append-only
    for line in lines[1:]:
        spoof = spoof_of(re.findall(r"call_\d+", line)[0])
        assert_safe(line, spoof)  # the tool's name in full: a pipe has no width to cut to


@pytest.mark.usefixtures("spoofed_log")
def test_audit_json_export_holds_no_hidden_character() -> None:
    text = invoke("export", "--format", "json")
    assert_safe(text, "".join(SPOOFS), lines=True)
    records = json.loads(text)
    assert len(records) == 2 * len(SPOOFS)
    for record in records:
        spoof = spoof_of(record["call_id"])
        assert_safe(record["tool"], spoof)
        assert_safe(record["arguments"]["path"], spoof)
        assert_safe(json.dumps(record, ensure_ascii=False), spoof)
        if record["outcome"] == "executed":
            assert_safe(record["result_summary"], spoof)


@pytest.mark.usefixtures("spoofed_log")
def test_audit_csv_export_holds_no_hidden_character() -> None:
    text = invoke("export", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 2 * len(SPOOFS)
    assert len(text.splitlines()) == 1 + len(rows)  # no cell breaks its row
    for row in rows:
        spoof = spoof_of(row["call_id"])
        for name, cell in row.items():
            assert_safe(cell, spoof, whole=name in ("tool", "arguments", "taint"))
