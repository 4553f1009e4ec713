"""Write to a Hearth database forever, printing `ack <kind> ...` once each write has returned.

test_crash.py runs `main` in a forked child (`tests.fixtures.forked`) and kills it with SIGKILL.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hearth.messages import Message, ToolCall
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, ConversationStore, IntentLog, Taint, open_database


def ack(*fields: object) -> None:
    sys.stdout.write(" ".join(["ack", *map(str, fields)]) + "\n")
    sys.stdout.flush()


def expected_message(run: int, seq: int) -> Message:
    """The message the writer stores at `seq`, so the test can check content, not only ids."""
    call = ToolCall(
        "send_mail", {"to": "ana@example.org", "step": seq // 2}, id=f"call_{run}_{seq // 2}"
    )
    if seq % 2 == 0:
        return Message.assistant(f"run {run} step {seq // 2}", tool_calls=[call])
    return Message.tool_result(call, f"sent {seq // 2} ✓")


def main(path: Path, run: int) -> None:
    db = open_database(path)
    conversations, audit, intents = ConversationStore(db), AuditLog(db), IntentLog(db)
    conversation = conversations.create(f"run {run}")
    ack("conversation", conversation, run)
    for step in range(sys.maxsize):
        proposal = expected_message(run, 2 * step)
        call = proposal.tool_calls[0]
        intent = intents.intend(call.id, call.name, call.arguments)
        ack("intent", intent)
        ack("message", conversation, conversations.append(conversation, proposal))
        taint = [Taint("to", "ana@example.org", f"email {step}")]
        audit_id = audit.append(
            call_id=call.id,
            tool=call.name,
            arguments=call.arguments,
            ruling=Ruling(
                True, Decider.RULE, Reason.RULE_ALLOWS, "allowed", "r1", "allow t always"
            ),
            outcome="proposed",
            conversation_id=conversation,
            taint=taint,
        )
        ack("audit", audit_id, call.id)
        intents.executed(intent, f"<{call.id}@hearth>")
        ack("executed", intent)
        audit_id = audit.record_outcome(
            call.id, "executed", result_summary="sent", duration_ms=step
        )
        ack("audit", audit_id, call.id)
        result = expected_message(run, 2 * step + 1)
        ack("message", conversation, conversations.append(conversation, result))
