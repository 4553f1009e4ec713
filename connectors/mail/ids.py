"""Message ids the model copies ("INBOX/42": folder and UID) and the dates it writes."""

from __future__ import annotations

import re
from datetime import date, timedelta

from hearth.connectors.mail.errors import MailError

_DAYS_AGO = re.compile(r"(\d{1,4})\s*days?(\s+ago)?")


def message_id(folder: str, uid: int) -> str:
    return f"{folder}/{uid}"


def parse_message_id(value: str) -> tuple[str, int]:
    """Folder and UID of "<folder>/<uid>"; folder names may hold "/" themselves."""
    folder, _, uid = str(value).strip().rpartition("/")
    if not folder or not uid.isdigit() or int(uid) <= 0:
        raise MailError(f"{value!r} is not a message id; ids look like INBOX/42, from mail.list")
    return folder, int(uid)


def parse_since(value: str | None, today: date) -> date | None:
    """A day from YYYY-MM-DD, today, yesterday, "3 days" or "a week"; None when not given."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip().lower()
    named = {"today": 0, "yesterday": 1, "a week": 7, "last week": 7, "a month": 30}
    if text in named:
        return today - timedelta(days=named[text])
    if match := _DAYS_AGO.fullmatch(text):
        return today - timedelta(days=int(match.group(1)))
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise MailError(f"{value!r} is not a day; write YYYY-MM-DD, today or '3 days'") from None
