"""How the mail account stands, in one line: for the Accounts page and `hearth mail`."""

from __future__ import annotations

from hearth import HearthError
from hearth.connectors.mail.account import MailAccount


def ago(seconds: float) -> str:
    """ "just now", "5 minutes ago", "3 hours ago", "2 days ago"."""
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def summary(account: MailAccount, now: float) -> str | None:
    """E.g. "ann@example.org: checked 2 minutes ago; 1 message waits for you to send it"."""
    try:
        settings = account.settings()
    except HearthError as error:
        return str(error)
    if not settings.address:
        return None
    parts = [settings.address]
    if account.last_sync is not None:
        parts.append(f"checked {ago(now - account.last_sync)}")
    if account.last_error:
        parts.append(f"last check failed: {account.last_error}")
    waiting = account.outbox.entries(states=("queued",))
    if waiting:
        parts.append(f"{messages(len(waiting))} waiting for you to send")
    unknown = account.outbox.entries(states=("unknown",))
    if unknown:
        parts.append(f"{messages(len(unknown))} may not have been sent")
    return "; ".join(parts)


def messages(number: int) -> str:
    """ "1 message", "3 messages"."""
    return f"{number} message{'s' if number != 1 else ''}"
