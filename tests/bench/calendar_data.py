"""A generated five-year calendar for the calendar benchmark, as CalDAV objects and as one file.

5,000 one-off events and 200 recurring series (daily, weekly on weekdays, monthly) between 2024
and 2028, most in Europe/Berlin and some in New York, Tokyo and UTC. A third of the series skip
instances (EXDATE) and a quarter have moved or retitled instances (RECURRENCE-ID overrides),
as calendars that have been in use for years do. Same seed, same text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from dateutil.rrule import rrulestr

from hearth.connectors.evaluation.servers.radicale import USER, RadicaleServer
from tests.connectors.calendar.kit import other_client, server_calendar

FIRST_DAY, LAST_DAY = date(2024, 1, 1), date(2028, 12, 31)
STAMP = "20240101T000000Z"
# The zones and how often events use them; "UTC" events are written with a Z suffix.
ZONES = (("Europe/Berlin", 0.70), ("America/New_York", 0.15), ("Asia/Tokyo", 0.10), ("UTC", 0.05))
VTIMEZONES = {  # as desktop clients write them: yearly rules, no table of historic changes
    "Europe/Berlin": (
        "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"
        "BEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n"
        "DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
        "BEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n"
        "DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\n"
        "END:VTIMEZONE\r\n"
    ),
    "America/New_York": (
        "BEGIN:VTIMEZONE\r\nTZID:America/New_York\r\n"
        "BEGIN:DAYLIGHT\r\nTZOFFSETFROM:-0500\r\nTZOFFSETTO:-0400\r\nTZNAME:EDT\r\n"
        "DTSTART:19700308T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\r\nEND:DAYLIGHT\r\n"
        "BEGIN:STANDARD\r\nTZOFFSETFROM:-0400\r\nTZOFFSETTO:-0500\r\nTZNAME:EST\r\n"
        "DTSTART:19701101T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\r\nEND:STANDARD\r\n"
        "END:VTIMEZONE\r\n"
    ),
    "Asia/Tokyo": (
        "BEGIN:VTIMEZONE\r\nTZID:Asia/Tokyo\r\n"
        "BEGIN:STANDARD\r\nTZOFFSETFROM:+0900\r\nTZOFFSETTO:+0900\r\nTZNAME:JST\r\n"
        "DTSTART:19700101T000000\r\nEND:STANDARD\r\n"
        "END:VTIMEZONE\r\n"
    ),
}
TITLES = (
    "Standup", "Planning", "Dentist", "Lunch with Sam", "Review", "Call with supplier",
    "Yoga", "Parents' evening", "Budget meeting", "Flight", "Haircut", "1:1", "Workshop",
    "Car service", "Piano lesson", "Team retro", "Doctor", "Football", "Interview", "Demo",
)  # fmt: skip
PLACES = ("", "", "Room 4.12", "Online", "Café Lindner", "Main office", "Town hall")


@dataclass(frozen=True)
class Series:
    """How one recurring series repeats, as an RRULE, with how many of them to generate."""

    kind: str
    count: int
    rules: tuple[str, ...]


SERIES = (
    Series("daily", 50, ("FREQ=DAILY", "FREQ=DAILY;COUNT=400", "FREQ=DAILY;INTERVAL=2")),
    Series(
        "weekly_weekdays",
        100,
        ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=WEEKLY;BYDAY=TU"),
    ),
    Series("monthly", 50, ("FREQ=MONTHLY;BYMONTHDAY=15", "FREQ=MONTHLY;BYDAY=1MO")),
)


@dataclass(frozen=True)
class GeneratedCalendar:
    """The calendar as CalDAV objects (UID, VCALENDAR text) and what went into it."""

    objects: list[tuple[str, str]]
    one_off: int
    series: dict[str, int]
    with_exdates: int
    with_overrides: int
    zones: dict[str, int]

    def as_ics_file(self, name: str) -> str:
        """The whole calendar as one .ics file, each VTIMEZONE once, as an export would be."""
        events = "".join(_events_of(text) for _, text in self.objects)
        return _vcalendar(f"X-WR-CALNAME:{name}\r\n" + "".join(VTIMEZONES.values()) + events)


def generate(one_off: int = 5000, seed: int = 20260601) -> GeneratedCalendar:
    """A five-year calendar of `one_off` single events plus the 200 series of SERIES."""
    rng = random.Random(seed)
    objects: list[tuple[str, str]] = []
    zones = dict.fromkeys((zone for zone, _ in ZONES), 0)
    for n in range(one_off):
        zone = _zone(rng)
        zones[zone] += 1
        objects.append((f"single-{n:05d}", _single(f"single-{n:05d}", zone, rng)))
    counts, exdates, overrides = {}, 0, 0
    for series in SERIES:
        counts[series.kind] = series.count
        for n in range(series.count):
            zone = _zone(rng)
            zones[zone] += 1
            uid = f"{series.kind}-{n:03d}"
            rule = series.rules[n % len(series.rules)]
            skipped, moved = n % 3 == 0, n % 4 == 1
            exdates, overrides = exdates + skipped, overrides + moved
            objects.append((uid, _recurring(uid, zone, rule, skipped, moved, rng)))
    return GeneratedCalendar(objects, one_off, counts, exdates, overrides, zones)


def load_onto(server: RadicaleServer, calendar: GeneratedCalendar, name: str, how: str) -> None:
    """Put the calendar on the server as the collection `name`: with `how` "put" in one PUT on
    the collection, else written straight into Radicale's storage folder, one file per object
    as Radicale keeps them (5,200 single PUTs take minutes: Radicale checks each new UID
    against the whole collection)."""
    if how == "put":
        client = other_client(server)
        client.principal()
        body = calendar.as_ics_file(name)
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        response = client.put(f"{server.url}{USER}/bench/", body, headers)
        if response.status not in (201, 204):
            raise RuntimeError(f"Radicale refused the upload: {response.status}")
        return
    collection = urlsplit(str(server_calendar(server, name).url)).path.strip("/")
    folder = server.folder / "collections" / "collection-root" / collection
    if not folder.is_dir():
        raise RuntimeError(f"Radicale's storage has no folder {folder}")
    for uid, ics in calendar.objects:
        (folder / f"{uid}.ics").write_text(ics, newline="")


def changed(ics: str, title: str) -> str:
    """The same object with its first SUMMARY replaced and its SEQUENCE raised."""
    head, _, rest = ics.partition("SUMMARY:")
    _, _, tail = rest.partition("\n")  # servers may hand the text back with bare LF endings
    return f"{head}SUMMARY:{title}\r\nSEQUENCE:1\r\n{tail}"


def _zone(rng: random.Random) -> str:
    return rng.choices([z for z, _ in ZONES], [w for _, w in ZONES])[0]


def _single(uid: str, zone: str, rng: random.Random) -> str:
    day = FIRST_DAY + timedelta(days=rng.randrange((LAST_DAY - FIRST_DAY).days + 1))
    extra = f"LOCATION:{rng.choice(PLACES)}\r\n" if rng.random() < 0.5 else ""
    if rng.random() < 0.05:
        extra += "TRANSP:TRANSPARENT\r\n"
    if rng.random() < 0.2:
        extra += "ATTENDEE;CN=Sam:mailto:sam@example.org\r\nORGANIZER:mailto:me@example.org\r\n"
    if rng.random() < 0.08:  # all-day, one to three days
        end = day + timedelta(days=rng.randint(1, 3))
        times = f"DTSTART;VALUE=DATE:{day:%Y%m%d}\r\nDTEND;VALUE=DATE:{end:%Y%m%d}\r\n"
        return _object(None, _event(uid, rng, times + extra))
    start = datetime.combine(day, datetime.min.time()).replace(hour=rng.randint(7, 19))
    start += timedelta(minutes=rng.choice((0, 15, 30, 45)))
    end = start + timedelta(minutes=rng.choice((30, 45, 60, 90, 120)))
    body = _event(uid, rng, _timed("DTSTART", start, zone) + _timed("DTEND", end, zone) + extra)
    return _object(zone, body)


def _recurring(
    uid: str, zone: str, rule: str, skipped: bool, moved: bool, rng: random.Random
) -> str:
    first = FIRST_DAY + timedelta(days=rng.randrange(3 * 365))
    start = datetime.combine(first, datetime.min.time()).replace(hour=rng.randint(8, 17))
    instances = list(rrulestr(rule, dtstart=start, cache=False)[:25])
    start = instances[0]  # a DTSTART the rule itself would give, as clients write them
    end = start + timedelta(minutes=rng.choice((15, 30, 60)))
    if "COUNT" not in rule and rng.random() < 0.3:  # some series were ended at some point
        # RFC 5545 wants UNTIL in UTC when DTSTART has a zone; an hour off does not matter here.
        rule += f";UNTIL={start + timedelta(days=rng.randint(200, 900)):%Y%m%dT%H%M%S}Z"
    times = _timed("DTSTART", start, zone) + _timed("DTEND", end, zone) + f"RRULE:{rule}\r\n"
    if skipped:
        for instance in rng.sample(instances[1:], 4):
            times += _timed("EXDATE", instance, zone)
    master = _event(uid, rng, times)
    overrides = ""
    if moved:
        for instance in rng.sample(instances[1:], 2):
            later = instance + timedelta(hours=rng.randint(1, 3))
            own = _timed("RECURRENCE-ID", instance, zone) + _timed("DTSTART", later, zone)
            own += _timed("DTEND", later + (end - start), zone) + "LOCATION:Moved\r\n"
            overrides += _event(uid, rng, own)
    return _object(zone, master + overrides)


def _timed(name: str, moment: datetime, zone: str) -> str:
    if zone == "UTC":
        return f"{name}:{moment:%Y%m%dT%H%M%S}Z\r\n"
    return f"{name};TZID={zone}:{moment:%Y%m%dT%H%M%S}\r\n"


def _event(uid: str, rng: random.Random, fields: str) -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:{STAMP}\r\n"
        f"SUMMARY:{rng.choice(TITLES)}\r\n{fields}END:VEVENT\r\n"
    )


def _object(zone: str | None, events: str) -> str:
    return _vcalendar(VTIMEZONES.get(zone or "", "") + events)


def _vcalendar(body: str) -> str:
    return (
        f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//Bench//EN\r\n{body}END:VCALENDAR\r\n"
    )


def _events_of(text: str) -> str:
    start = text.index("BEGIN:VEVENT")
    return text[start : text.rindex("END:VCALENDAR")]
