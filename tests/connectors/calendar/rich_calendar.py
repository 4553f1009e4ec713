"""A seeded calendar with everything the time-span index must get right, as one .ics file.

One-off events in several zones, floating and all-day (some days long, some of no length, some
by DURATION); series by day, week, month and year with COUNT, UNTIL or no end, EXDATEs, RDATEs
(times and periods), overrides moved before the series starts and after it ends, a
RANGE=THISANDFUTURE override, a series at 02:30 in Berlin (through the hour that does not
exist in March and the one that happens twice in October), an hourly series without end, and a
to-do that is no event. Same seed, same text.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

ZONES = ("Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC", "floating")
FIRST, LAST = date(2024, 6, 1), date(2028, 6, 1)
STAMP = "DTSTAMP:20240101T000000Z\r\n"


def rich_calendar(seed: int = 33, one_offs: int = 150, series: int = 40) -> str:
    """The calendar's text (VTIMEZONEs come from the zone names, as icalendar reads TZIDs)."""
    rng = random.Random(seed)
    events = [_one_off(f"one-{n}", rng) for n in range(one_offs)]
    events += [_series(f"series-{n}", rng) for n in range(series)]
    events += _special()
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//Rich//EN\r\n"
        "X-WR-CALNAME:Rich\r\n" + "".join(events) + "END:VCALENDAR\r\n"
    )


def _when(name: str, moment: datetime | date, zone: str) -> str:
    if not isinstance(moment, datetime):
        return f"{name};VALUE=DATE:{moment:%Y%m%d}\r\n"
    if zone == "UTC":
        return f"{name}:{moment:%Y%m%dT%H%M%S}Z\r\n"
    if zone == "floating":
        return f"{name}:{moment:%Y%m%dT%H%M%S}\r\n"
    return f"{name};TZID={zone}:{moment:%Y%m%dT%H%M%S}\r\n"


def _event(uid: str, body: str, title: str = "Event") -> str:
    return f"BEGIN:VEVENT\r\nUID:{uid}\r\n{STAMP}SUMMARY:{title} {uid}\r\n{body}END:VEVENT\r\n"


def _day(rng: random.Random) -> date:
    return FIRST + timedelta(days=rng.randrange((LAST - FIRST).days))


def _one_off(uid: str, rng: random.Random) -> str:
    zone, day = rng.choice(ZONES), _day(rng)
    kind = rng.random()
    if kind < 0.15:  # all day, one to four days
        end = day + timedelta(days=rng.randint(1, 4))
        return _event(uid, _when("DTSTART", day, zone) + _when("DTEND", end, zone))
    start = datetime.combine(day, datetime.min.time()).replace(hour=rng.randint(0, 23))
    start += timedelta(minutes=rng.choice((0, 15, 30, 45)))
    if kind < 0.2:  # no length at all
        return _event(uid, _when("DTSTART", start, zone))
    if kind < 0.3:
        return _event(uid, _when("DTSTART", start, zone) + "DURATION:PT1H30M\r\n")
    end = start + timedelta(minutes=rng.choice((30, 60, 120, 600, 3000)))
    extra = "TRANSP:TRANSPARENT\r\n" if rng.random() < 0.1 else ""
    return _event(uid, _when("DTSTART", start, zone) + _when("DTEND", end, zone) + extra)


def _series(uid: str, rng: random.Random) -> str:
    zone = rng.choice(ZONES)
    rule = rng.choice(
        (
            "FREQ=DAILY",
            "FREQ=DAILY;INTERVAL=3",
            "FREQ=WEEKLY;BYDAY=MO,WE,FR",
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
            "FREQ=MONTHLY;BYMONTHDAY=31",
            "FREQ=MONTHLY;BYDAY=-1FR",
            "FREQ=YEARLY",
        )
    )
    day = _day(rng)
    all_day = rng.random() < 0.15
    start: datetime | date = day
    if not all_day:
        start = datetime.combine(day, datetime.min.time()).replace(hour=rng.randint(6, 20))
    end = start + (timedelta(days=1) if all_day else timedelta(minutes=rng.choice((30, 90))))
    ending = rng.random()
    if ending < 0.3:
        rule += f";COUNT={rng.randint(3, 60)}"
    elif ending < 0.6:
        until = start + timedelta(days=rng.randint(20, 500))
        rule += f";UNTIL={until:%Y%m%d}" if all_day else f";UNTIL={until:%Y%m%dT%H%M%S}Z"
    body = _when("DTSTART", start, zone) + _when("DTEND", end, zone) + f"RRULE:{rule}\r\n"
    for _ in range(rng.randint(0, 3)):
        body += _when("EXDATE", _later(start, rng.randint(1, 40)), zone)
    if rng.random() < 0.3:
        body += _when("RDATE", _later(start, -rng.randint(1, 30)), zone)
    overrides = ""
    for _ in range(rng.randint(0, 2)):
        original = _later(start, rng.randint(0, 20))
        moved = _later(original, rng.choice((-400, -3, 2, 700)))
        shift = (end - start) if not all_day else timedelta(days=1)
        own = _when("RECURRENCE-ID", original, zone) + _when("DTSTART", moved, zone)
        own += _when("DTEND", moved + shift, zone)
        overrides += _event(uid, own + "LOCATION:Moved\r\n", "Moved")
    return _event(uid, body) + overrides


def _later(start: datetime | date, days: int) -> datetime | date:
    return start + timedelta(days=days)


def _special() -> list[str]:
    berlin = "Europe/Berlin"
    night = datetime(2026, 3, 20, 2, 30)
    return [
        # Through 02:30 on 29 March (no such time) and on 25 October (twice) in Berlin.
        _event(
            "night-shift",
            _when("DTSTART", night, berlin)
            + _when("DTEND", night + timedelta(hours=1), berlin)
            + "RRULE:FREQ=DAILY\r\n",
        ),
        _event(
            "night-floating",
            _when("DTSTART", night, "floating")
            + _when("DTEND", night + timedelta(minutes=30), "floating")
            + "RRULE:FREQ=DAILY;COUNT=400\r\n",
        ),
        # Every hour, without end: too dense to store, so it is expanded at query time.
        _event(
            "hourly", "DTSTART:20250101T000000Z\r\nDTEND:20250101T001500Z\r\nRRULE:FREQ=HOURLY\r\n"
        ),
        # Periods listed by RDATE, and a series moved from its fifth week on.
        _event(
            "periods",
            "DTSTART;TZID=Asia/Tokyo:20260105T100000\r\nDTEND;TZID=Asia/Tokyo:20260105T110000\r\n"
            "RDATE;VALUE=PERIOD:20260210T010000Z/20260210T050000Z,20270301T120000Z/PT8H\r\n",
        ),
        _event(
            "this-and-future",
            "DTSTART;TZID=Europe/Berlin:20260105T090000\r\nDTEND;TZID=Europe/Berlin:20260105T100000"
            "\r\nRRULE:FREQ=WEEKLY;COUNT=20\r\n",
        )
        + _event(
            "this-and-future",
            "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20260202T090000\r\n"
            "DTSTART;TZID=Europe/Berlin:20260204T150000\r\nDTEND;TZID=Europe/Berlin:20260204T160000"
            "\r\n",
            "Later",
        ),
        "BEGIN:VTODO\r\nUID:todo\r\n" + STAMP + "SUMMARY:Not an event\r\n"
        "DUE:20260301T090000Z\r\nEND:VTODO\r\n",
    ]
