"""Malformed ICS samples: each breaks one thing a real-world file gets wrong."""

from __future__ import annotations

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Corpus//EN\r\n"
GOOD = "BEGIN:VEVENT\r\nUID:good\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Good\r\nEND:VEVENT\r\n"
TAIL = "END:VCALENDAR\r\n"


def wrap(*events: str) -> str:
    """A calendar holding one good event after the given component texts."""
    return HEAD + "".join(events) + GOOD + TAIL


def event(uid: str, *lines: str) -> str:
    """A VEVENT with the given UID and extra lines."""
    return "\r\n".join(["BEGIN:VEVENT", f"UID:{uid}", *lines, "END:VEVENT"]) + "\r\n"


def samples() -> dict[str, str | bytes]:
    """Name -> ICS text that is broken in one way but still holds the good event."""
    long_text = "DESCRIPTION:" + "\r\n ".join(["y" * 74] * (10_000_000 // 74))
    return {
        "truncated event": HEAD + GOOD + "BEGIN:VEVENT\r\nUID:cut\r\nDTSTART:2026",
        "bad line": wrap(event("bad-line", "DTSTART:20261201T100000Z", "NO COLON HERE")),
        "bad date": wrap(event("bad-date", "DTSTART:2026-13-45")),
        "bad tzid": wrap(event("bad-tz", "DTSTART;TZID=Mars/Olympus:20261201T100000")),
        "missing dtstart": wrap(event("no-start", "SUMMARY:Nothing")),
        "missing uid": wrap("BEGIN:VEVENT\r\nDTSTART:20261201T110000Z\r\nEND:VEVENT\r\n"),
        "never-ending rrule": wrap(
            event("forever", "DTSTART:20200101T000000Z", "RRULE:FREQ=DAILY")
        ),
        "secondly rrule": wrap(event("dense", "DTSTART:19700101T000000Z", "RRULE:FREQ=SECONDLY")),
        "bad rrule": wrap(event("bad-rule", "DTSTART:20261201T100000Z", "RRULE:FREQ=NEVER;X")),
        "10 MB description": wrap(event("long", "DTSTART:20261201T100000Z", long_text)),
        "nested begin without end": wrap(
            event("nested", "DTSTART:20261201T100000Z", "BEGIN:VALARM", "ACTION:DISPLAY")
        ),
        "event inside event": wrap("BEGIN:VEVENT\r\nUID:outer\r\nDTSTART:20261201T100000Z\r\n"),
        "junk before and after": b"\x00\xff junk\r\n" + wrap().encode() + b"\xfe",
        "binary line inside": wrap(event("binary", "DTSTART:20261201T100000Z", "X-J:\x00\x01\x02")),
        "bad vtimezone": wrap(
            "BEGIN:VTIMEZONE\r\nTZID:Broken\r\nBEGIN:STANDARD\r\nEND:VTIMEZONE\r\n"
        ),
        "end before begin": wrap("END:VEVENT\r\nSUMMARY:stray\r\n"),
        "dtend before dtstart": wrap(
            event("backwards", "DTSTART:20261201T100000Z", "DTEND:20261201T090000Z")
        ),
    }


def not_calendars() -> dict[str, str | bytes]:
    """Texts that hold no calendar at all."""
    return {
        "empty": b"",
        "binary junk": bytes(range(256)) * 64,
        "plain text": "hello\nworld\n",
        "only an event": GOOD,
    }
