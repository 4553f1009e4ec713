"""Sending with nothing lost or sent twice: the outbox intent, SMTP, then a copy in Sent.

The order is fixed. The message gets its Message-ID and an outbox row ("sending") before SMTP
begins. A server that cannot be reached leaves it "queued" until the user confirms sending it.
A connection lost after the data went out leaves it "unknown": only the user, after Hearth has
looked for it in Sent, decides; nothing is ever resent by itself. Once accepted, the message
is appended to the Sent folder unless the server files a copy itself.
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
from dataclasses import dataclass
from typing import Literal

from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.compose import Draft, build_message, new_message_id
from hearth.connectors.mail.errors import ConnectionProblem, MailError, Offline
from hearth.connectors.mail.outbox import OutboxEntry
from hearth.connectors.mail.smtp import NotSent, SendUnknown, deliver, open_smtp

log = logging.getLogger(__name__)
SendState = Literal["sent", "filed", "queued", "unknown"]


@dataclass(frozen=True)
class SendOutcome:
    """Where a message stands after `send`: its Message-ID, state and what to tell the user."""

    message_id: str
    state: SendState
    note: str = ""


def send(account: MailAccount, draft: Draft) -> SendOutcome:
    """Send `draft` once; `queued` when offline, `unknown` when the connection dropped late.

    The same message asked for again while an earlier try waits in the outbox (offline, then
    back online) sends that one, under its Message-ID, so it can never go out twice.
    """
    waiting = _waiting_copy(account, draft)
    if waiting is not None:
        return send_queued(account, waiting.message_id)
    message_id = new_message_id(draft.sender)
    raw = build_message(draft, message_id=message_id)
    account.outbox.add(message_id, raw, draft.sender.email, list(draft.recipients))
    return _deliver(account, message_id)


def send_queued(account: MailAccount, message_id: str) -> SendOutcome:
    """Send a queued message the user has now confirmed (e.g. back online)."""
    entry = _entry(account, message_id)
    if entry.state not in ("queued", "failed"):
        raise MailError(f"{message_id} is {entry.state}, not waiting to be sent")
    account.outbox.mark(message_id, "sending", "confirmed by the user", confirmed=True)
    return _deliver(account, message_id)


def _waiting_copy(account: MailAccount, draft: Draft) -> OutboxEntry | None:
    for entry in account.outbox.entries(["queued"]):
        if entry.sender != draft.sender.email or set(entry.recipients) != set(draft.recipients):
            continue
        again = build_message(draft, message_id=entry.message_id)
        if _without_date(again) == _without_date(entry.raw):
            return entry
    return None


def _without_date(raw: bytes) -> bytes:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"date:")]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _deliver(account: MailAccount, message_id: str) -> SendOutcome:
    entry = _entry(account, message_id)
    settings = account.ready()
    password = settings.password.get_secret_value() if settings.password else ""
    try:
        client = open_smtp(settings, password)
    except ConnectionProblem as problem:
        if problem.stage in ("dns", "tcp"):
            account.outbox.mark(message_id, "queued", f"offline: {problem}")
            return SendOutcome(
                message_id,
                "queued",
                "The mail server cannot be reached, so the message waits in the outbox. Once "
                "back online, it is sent when you confirm it: ask for the same message again, "
                "or use `hearth mail outbox`.",
            )
        account.outbox.mark(message_id, "failed", str(problem))
        raise
    try:
        deliver(client, sender=entry.sender, recipients=entry.recipients, message=entry.raw)
    except SendUnknown as unknown:
        account.outbox.mark(message_id, "unknown", str(unknown))
        return SendOutcome(
            message_id,
            "unknown",
            "The connection dropped after the message was handed to the server, so it may or "
            "may not have been sent. Hearth will not send it again by itself; check with "
            "`hearth mail outbox`.",
        )
    except NotSent as refused:
        account.outbox.mark(message_id, "failed", str(refused))
        raise
    finally:
        with contextlib.suppress(smtplib.SMTPException, OSError):
            client.quit()
    account.outbox.mark(message_id, "sent")
    account.changed_at = account.clock()  # a server may file its own copy in Sent
    return file_copy(account, message_id)


def file_copy(account: MailAccount, message_id: str) -> SendOutcome:
    """Put a sent message's copy in Sent, once: skipped when the server files it or has it."""
    entry = _entry(account, message_id)
    if entry.state == "filed":
        return SendOutcome(message_id, "filed", "Sent, with a copy in Sent.")
    if account.public_settings().files_sent():
        account.outbox.mark(message_id, "filed", "the server keeps its own copy in Sent")
        return SendOutcome(message_id, "filed", "Sent.")
    try:
        with account.mailbox() as mailbox:
            sent = mailbox.special("\\Sent")
            if sent is None:
                account.outbox.mark(message_id, "filed", "the account has no Sent folder")
                return SendOutcome(message_id, "filed", "Sent (the account has no Sent folder).")
            if not mailbox.find_message_id(sent, message_id):
                mailbox.append(sent, entry.raw, ["\\Seen"])
    except (Offline, ConnectionProblem) as problem:
        log.info("the copy of %s waits for the server: %s", message_id, problem)
        return SendOutcome(message_id, "sent", "Sent; the copy in Sent is added when online.")
    account.outbox.mark(message_id, "filed", f"copied to {sent}")
    return SendOutcome(message_id, "filed", "Sent, with a copy in Sent.")


def reconcile(account: MailAccount, message_id: str) -> bool:
    """Look for an `unknown` message in Sent; True (and marked sent) when it is there.

    When it is not found the state stays `unknown`: the user decides (`mark_sent` or a
    confirmed resend). Searching cannot prove a message was not delivered.
    """
    entry = _entry(account, message_id)
    if entry.state != "unknown":
        raise MailError(f"{message_id} is {entry.state}, not unknown")
    with account.mailbox() as mailbox:
        sent = mailbox.special("\\Sent")
        found = bool(sent and mailbox.find_message_id(sent, message_id))
    if found:
        account.outbox.reconcile(message_id, "filed", f"found in {sent} by its Message-ID")
    return found


def mark_sent(account: MailAccount, message_id: str) -> None:
    """The user says an `unknown` message did go out; it is filed and never sent again."""
    if _entry(account, message_id).state != "unknown":
        raise MailError(f"{message_id} is not unknown")
    account.outbox.reconcile(message_id, "sent", "the user says it was sent")
    file_copy(account, message_id)


def resend(account: MailAccount, message_id: str) -> SendOutcome:
    """The user, having checked, sends an `unknown` message again: their decision, not ours."""
    if _entry(account, message_id).state != "unknown":
        raise MailError(f"{message_id} is not unknown")
    account.outbox.mark(message_id, "sending", "the user chose to send it again", confirmed=True)
    return _deliver(account, message_id)


def pending_copies(account: MailAccount) -> list[OutboxEntry]:
    return list(account.outbox.entries(states=("sent",)))


def _entry(account: MailAccount, message_id: str) -> OutboxEntry:
    entry = account.outbox.get(message_id)
    if entry is None:
        raise MailError(f"nothing in the outbox has the id {message_id}")
    return entry
