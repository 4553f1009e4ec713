"""What the Accounts page offers for the outbox: send what waited offline, after the user
confirms it, and look in Sent for sends whose outcome is unknown."""

from __future__ import annotations

from collections.abc import Sequence

from hearth import ConnectorAction, HearthError
from hearth.connectors.mail import sending
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.outbox import OutboxEntry
from hearth.connectors.mail.parsing import parse_headers
from hearth.connectors.mail.status import messages

_LISTED = 10


def outbox_actions(account: MailAccount) -> list[ConnectorAction]:
    found = []
    waiting = account.outbox.entries(states=("queued",))
    if waiting:
        found.append(
            ConnectorAction(
                label=f"Send {messages(len(waiting))} waiting…",
                confirm="Written while the mail server could not be reached; send now?\n"
                + _listed(waiting),
                run=lambda: _send_all(account, [entry.message_id for entry in waiting]),
            )
        )
    unknown = account.outbox.entries(states=("unknown",))
    if unknown:
        found.append(
            ConnectorAction(
                label=f"Look for {messages(len(unknown))} in Sent",
                confirm="",
                run=lambda: _check_all(account, [entry.message_id for entry in unknown]),
            )
        )
    return found


def _send_all(account: MailAccount, ids: Sequence[str]) -> str:
    sent = 0
    for message_id in ids:
        try:
            outcome = sending.send_queued(account, message_id)
        except HearthError as error:
            return f"Sent {messages(sent)}; the rest still waits: {error}"
        if outcome.state == "queued":
            return f"Sent {messages(sent)}; the server still cannot be reached, so the rest waits."
        sent += 1
    return f"Sent {messages(sent)}."


def _check_all(account: MailAccount, ids: Sequence[str]) -> str:
    found = sum(sending.reconcile(account, message_id) for message_id in ids)
    missing = len(ids) - found
    if not missing:
        return f"Found {messages(found)} in Sent: they were sent."
    return (
        f"Found {messages(found)} in Sent; {messages(missing)} not there. If you know one "
        "arrived, run `hearth mail outbox mark-sent ID`; to send it again, "
        "`hearth mail outbox resend ID`."
    )


def _listed(entries: Sequence[OutboxEntry]) -> str:
    lines = []
    for entry in entries[:_LISTED]:
        head = entry.raw.split(b"\r\n\r\n", 1)[0]
        subject = parse_headers(head, folder="Outbox", uid=0).subject or "(no subject)"
        lines.append(f"• To {', '.join(entry.recipients)}: “{subject}”")
    if len(entries) > _LISTED:
        lines.append(f"… and {len(entries) - _LISTED} more")
    return "\n".join(lines)
