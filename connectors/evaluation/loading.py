"""A scenario's initial state as the servers store it: RFC 5322 messages and iCalendar events."""

from __future__ import annotations

import email.utils
from datetime import date, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP

import icalendar

from hearth.connectors.evaluation.scenario import Event, Mail

EVENT_LENGTH = timedelta(hours=1)


def raw_message(mail: Mail, now: datetime) -> bytes:
    """`mail` as the bytes a server stores, with a Message-ID of its own and CRLF line ends."""
    message = EmailMessage(policy=SMTP)
    message["From"] = mail.sender
    message["To"] = mail.to
    message["Subject"] = mail.subject
    sent = datetime.fromisoformat(mail.date) if mail.date else now - timedelta(hours=1)
    if sent.tzinfo is None:
        sent = sent.astimezone()
    message["Date"] = email.utils.format_datetime(sent)
    message["Message-ID"] = email.utils.make_msgid(domain="scenario.example")
    if mail.body or not mail.html:
        message.set_content(mail.body)
        if mail.html:
            message.add_alternative(mail.html, subtype="html")
    else:
        message.set_content(mail.html, subtype="html")
    for attachment in mail.attachments:
        message.add_attachment(
            attachment.text.encode(), maintype="text", subtype="plain", filename=attachment.name
        )
    return message.as_bytes()


def event_ical(event: Event, uid: str) -> str:
    """`event` as a VCALENDAR with one VEVENT, in this machine's time zone."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Hearth evaluation//EN")
    calendar.add("version", "2.0")
    vevent = icalendar.Event()
    vevent.add("uid", uid)
    vevent.add("dtstamp", datetime.now().astimezone())
    vevent.add("summary", event.title)
    start = _moment(event.start)
    vevent.add("dtstart", start)
    if event.end:
        vevent.add("dtend", _moment(event.end))
    elif isinstance(start, datetime):
        vevent.add("dtend", start + EVENT_LENGTH)
    for name, value in (("location", event.location), ("description", event.description)):
        if value:
            vevent.add(name, value)
    if event.organizer:
        vevent.add("organizer", f"mailto:{event.organizer}")
    for attendee in event.attendees:
        vevent.add("attendee", f"mailto:{attendee}")
    calendar.add_component(vevent)
    return str(calendar.to_ical().decode())


def _moment(text: str) -> datetime | date:
    if "T" not in text:
        return date.fromisoformat(text)
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.astimezone()
