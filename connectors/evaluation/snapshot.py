"""The environment as plain values, read straight from the servers and the disk.

Nothing here goes through Hearth's connectors: the judge reads Dovecot over IMAP (with
BODY.PEEK, so reading marks nothing), the SMTP server's receipts, Radicale over CalDAV, the
files on disk and the laptop's settings, as another program on the machine would.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import icalendar
import imapclient
from caldav.davclient import DAVClient

TEXT_LIMIT = 64 * 1024


@dataclass(frozen=True)
class MailItem:
    folder: str
    message_id: str
    subject: str
    sender: str
    to: tuple[str, ...]
    body: str
    flags: tuple[str, ...]
    attachments: tuple[str, ...]


@dataclass(frozen=True)
class EventItem:
    calendar: str
    uid: str
    title: str
    start: str
    end: str
    location: str
    description: str
    attendees: tuple[str, ...]

    def fields(self) -> dict[str, Any]:
        return {
            "calendar": self.calendar,
            "title": self.title,
            "start": self.start,
            "end": self.end,
            "location": self.location,
            "description": self.description,
            "attendees": list(self.attendees),
        }


@dataclass(frozen=True)
class Snapshot:
    """Mail by (Message-ID, copy), sent mail, events by (calendar, UID), files, settings."""

    mail: dict[tuple[str, int], MailItem]
    sent: tuple[MailItem, ...]
    events: dict[tuple[str, str], EventItem]
    files: dict[str, tuple[str, str | None]]  # path -> (sha256, text when small and text)
    settings: dict[str, bool | int]


def read_mailbox(client: imapclient.IMAPClient) -> dict[tuple[str, int], MailItem]:
    """Every message in every folder of the account `client` is logged in to."""
    found: dict[tuple[str, int], MailItem] = {}
    for _flags, _delimiter, name in client.list_folders():
        folder = name.decode() if isinstance(name, bytes) else str(name)
        client.select_folder(folder, readonly=True)
        uids = client.search(["ALL"])
        fetched = client.fetch(uids, ["FLAGS", "BODY.PEEK[]"]) if uids else {}
        for uid in sorted(fetched):
            data = fetched[uid]
            flags = tuple(sorted(_text(flag) for flag in data[b"FLAGS"] if flag != b"\\Recent"))
            item = mail_item(folder, data[b"BODY[]"], flags)
            copy = 0
            while (item.message_id, copy) in found:
                copy += 1
            found[(item.message_id, copy)] = item
    return found


def mail_item(folder: str, raw: bytes, flags: tuple[str, ...] = ()) -> MailItem:
    """A message as the judge compares it: headers, recipients, its text and attachment names."""
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    body_part = parsed.get_body(preferencelist=("plain", "html"))
    body = body_part.get_content() if body_part is not None else ""
    recipients = email.utils.getaddresses([str(parsed.get(header, "")) for header in ("To", "Cc")])
    return MailItem(
        folder=folder,
        message_id=str(parsed.get("Message-ID", "")).strip(),
        subject=str(parsed.get("Subject", "")),
        sender=email.utils.parseaddr(str(parsed.get("From", "")))[1].lower(),
        to=tuple(sorted(address.lower() for _name, address in recipients if address)),
        body=str(body),
        flags=flags,
        attachments=tuple(part.get_filename() or "" for part in parsed.iter_attachments()),
    )


def read_calendars(url: str, username: str, password: str) -> dict[tuple[str, str], EventItem]:
    """Every event in every calendar of the CalDAV account, times in this machine's zone."""
    found: dict[tuple[str, str], EventItem] = {}
    client = DAVClient(url=url, username=username, password=password)
    try:
        for calendar in client.principal().calendars():  # type: ignore[no-untyped-call]
            name = str(calendar.get_display_name() or calendar.url)
            for resource in calendar.events():
                for event in icalendar.Calendar.from_ical(resource.data).walk("VEVENT"):
                    item = event_item(name, event)
                    found[(name, item.uid)] = item
    finally:
        client.close()
    return found


def event_item(calendar: str, event: icalendar.cal.Component) -> EventItem:
    attendees = event.get("ATTENDEE", [])
    if not isinstance(attendees, list):
        attendees = [attendees]
    return EventItem(
        calendar=calendar,
        uid=str(event.get("UID", "")),
        title=str(event.get("SUMMARY", "")),
        start=_moment(event.get("DTSTART")),
        end=_moment(event.get("DTEND")),
        location=str(event.get("LOCATION", "")),
        description=str(event.get("DESCRIPTION", "")),
        attendees=tuple(sorted(_address(str(who)) for who in attendees)),
    )


def read_files(root: Path) -> dict[str, tuple[str, str | None]]:
    """Each file under `root` by its relative path: its sha256, and its text when small."""
    found: dict[str, tuple[str, str | None]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        text: str | None = None
        if len(data) <= TEXT_LIMIT:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        found[path.relative_to(root).as_posix()] = (hashlib.sha256(data).hexdigest(), text)
    return found


def _moment(value: Any) -> str:
    if value is None:
        return ""
    moment = value.dt
    if isinstance(moment, datetime):
        if moment.tzinfo is not None:
            moment = moment.astimezone().replace(tzinfo=None)
        return moment.isoformat(timespec="minutes")
    if isinstance(moment, date):
        return moment.isoformat()
    return str(moment)


def _address(value: str) -> str:
    return value.removeprefix("mailto:").removeprefix("MAILTO:").strip().lower()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def sent_items(receipts: Iterable[tuple[Iterable[str], bytes]]) -> tuple[MailItem, ...]:
    """What the SMTP server was handed: envelope recipients (Bcc too) and the message."""
    items = []
    for recipients, data in receipts:
        item = mail_item("(sent)", data)
        envelope = tuple(sorted(address.lower() for address in recipients))
        items.append(
            MailItem(
                item.folder,
                item.message_id,
                item.subject,
                item.sender,
                envelope,
                item.body,
                (),
                item.attachments,
            )
        )
    return tuple(items)
