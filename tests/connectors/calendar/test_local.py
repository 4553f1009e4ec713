"""Local ICS files as calendars: real files in a temporary folder, read by real icalendar."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

import pytest

from hearth.connectors.calendar.atomic import is_temporary
from hearth.connectors.calendar.errors import (
    BadCalendarData,
    CalendarError,
    CalendarNotFound,
    Conflict,
    EventNotFound,
    ReadOnlyCalendar,
)
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.objects import CalendarRef, StoredObject
from tests.connectors.files.privileges import as_a_user

BERLIN = [
    "BEGIN:VTIMEZONE",
    "TZID:Europe/Berlin",
    "BEGIN:STANDARD",
    "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    "DTSTART:19700329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "END:DAYLIGHT",
    "END:VTIMEZONE",
]


def event(uid: str, summary: str, *extra: str, start: str = "DTSTART:20260302T090000Z") -> str:
    """A VEVENT's text, CRLF line ends, with `extra` lines (may be components) before its END."""
    lines = ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20260101T000000Z", start, "DURATION:PT1H"]
    return "".join(f"{line}\r\n" for line in [*lines, f"SUMMARY:{summary}", *extra, "END:VEVENT"])


def calendar(*components: str, name: str | None = None, newline: str = "\r\n") -> str:
    header = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another App//EN\r\n"
    named = f"X-WR-CALNAME:{name}\r\n" if name else ""
    return (header + named + "".join(components) + "END:VCALENDAR\r\n").replace("\r\n", newline)


def source_of(*paths: Path) -> IcsFileSource:
    return IcsFileSource(lambda: list(paths))


def only(source: IcsFileSource) -> CalendarRef:
    [found] = source.calendars()
    return found


def stored(source: IcsFileSource, ref: CalendarRef, uid: str) -> StoredObject:
    return next(obj for obj in source.objects(ref)[0] if obj.uid == uid)


def summaries(source: IcsFileSource, ref: CalendarRef) -> dict[str, str]:
    found = {}
    for obj in source.objects(ref)[0]:
        line = next(x for x in obj.ics.splitlines() if x.startswith("SUMMARY:"))
        found[obj.uid] = line.removeprefix("SUMMARY:")
    return found


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A calendar file with two events and a to-do, written as another app wrote it."""
    path = tmp_path / "work.ics"
    todo = "BEGIN:VTODO\r\nUID:todo-1\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Taxes\r\nEND:VTODO\r\n"
    path.write_text(
        calendar(event("standup", "Standup"), todo, event("review", "Review"), name="Work"),
        newline="",
    )
    return path


def test_a_folder_gives_every_ics_file_in_it_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "calendars"
    (folder / "deeper" / "still").mkdir(parents=True)
    (folder / ".hidden").mkdir()
    (folder / "home.ics").write_text(calendar(event("a", "A"), name="Home"))
    (folder / "deeper" / "still" / "Sport.ICS").write_text(calendar(event("b", "B")))
    (folder / "deeper" / "notes.txt").write_text("not a calendar")
    (folder / ".secret.ics").write_text(calendar(event("c", "C")))
    (folder / ".hidden" / "inside.ics").write_text(calendar(event("d", "D")))
    leftover = folder / ".home.ics.hearth-999999-0123456789ab.tmp"
    leftover.write_text(calendar(event("e", "E")))
    assert is_temporary(leftover.name)
    single = tmp_path / "elsewhere" / "trips.ics"
    single.parent.mkdir()
    single.write_text(calendar(event("f", "F"), name="  "))  # a blank name: the file's own
    found = source_of(folder, single, folder / "home.ics").calendars()
    assert [(c.name, Path(c.location)) for c in found] == [
        ("Home", folder / "home.ics"),
        ("Sport", folder / "deeper" / "still" / "Sport.ICS"),
        ("trips", single),
    ]
    assert all(c.source == "ics" and c.writable for c in found)


def test_calendars_with_the_same_name_are_told_apart_the_same_way_each_time(
    tmp_path: Path,
) -> None:
    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "cal.ics").write_text(calendar(event(folder, "X"), name="Work"))
    (tmp_path / "b" / "Work (2).ics").write_text(calendar(event("literal", "Y")))
    (tmp_path / "c" / "work.ics").write_text(calendar(event("lower", "Z")))
    expected = {
        "Work": tmp_path / "a" / "cal.ics",
        "Work (3)": tmp_path / "b" / "cal.ics",
        "Work (4)": tmp_path / "c" / "cal.ics",
        "work (5)": tmp_path / "c" / "work.ics",
        "Work (2)": tmp_path / "b" / "Work (2).ics",
    }
    for grants in ([tmp_path], [tmp_path / "c", tmp_path / "b", tmp_path / "a"]):
        found = source_of(*grants).calendars()
        assert {c.name: Path(c.location) for c in found} == expected


def test_a_renamed_calendar_is_seen_under_its_new_name(work: Path) -> None:
    source = source_of(work)
    assert only(source).name == "Work"
    work.write_text(work.read_text().replace("X-WR-CALNAME:Work", "X-WR-CALNAME:Job"))
    assert only(source).name == "Job"


def test_each_uid_is_one_object_tagged_with_the_hash_of_the_file(work: Path) -> None:
    source = source_of(work)
    ref = only(source)
    objects, problems = source.objects(ref)
    digest = hashlib.sha256(work.read_bytes()).hexdigest()
    assert problems == []
    assert sorted(obj.uid for obj in objects) == ["review", "standup", "todo-1"]
    for obj in objects:
        assert (obj.calendar, obj.href, obj.etag) == ("Work", f"{work}#{obj.uid}", digest)
        assert obj.ics.startswith("BEGIN:VCALENDAR") and f"UID:{obj.uid}" in obj.ics


ALARM_NAMED_TARGET = "BEGIN:VALARM\r\nUID:target\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM"


def test_an_update_changes_that_event_and_leaves_every_other_byte(tmp_path: Path) -> None:
    path = tmp_path / "home.ics"
    folded = "DESCRIPTION:A long text another app folded over\r\n  two lines\\, on purpose"
    # An alarm's UID (here before the event's own) is the alarm's, not the event's.
    first = event("first", "First", folded).replace(
        "UID:first", f"{ALARM_NAMED_TARGET}\r\nUID:first"
    )
    old_target = event("target", "Old title", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM")
    last = event("last", "Last", 'X-OTHER-APP;X-P="a:b":kept as it was')
    path.write_bytes(calendar(first, old_target, last, name="Home", newline="\n").encode())
    source = source_of(path)
    ref = only(source)
    old = stored(source, ref, "target")
    result = source.put(ref, "target", calendar(event("target", "New")), expected_etag=old.etag)
    expected = calendar(first, last, event("target", "New"), name="Home", newline="\n")
    assert path.read_bytes() == expected.encode()  # the file's own line ends, too
    assert result.etag == hashlib.sha256(path.read_bytes()).hexdigest() != old.etag
    assert result == stored(source, ref, "target")
    assert summaries(source, ref) == {"first": "First", "target": "New", "last": "Last"}


def test_a_byte_order_mark_and_crlf_line_ends_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "marked.ics"
    path.write_bytes(b"\xef\xbb\xbf" + calendar(event("a", "A"), event("b", "B")).encode())
    source = source_of(path)
    ref = only(source)
    source.put(ref, "a", calendar(event("a", "A2")), expected_etag=stored(source, ref, "a").etag)
    expected = b"\xef\xbb\xbf" + calendar(event("b", "B"), event("a", "A2")).encode()
    assert path.read_bytes() == expected


def test_a_new_event_is_added_with_the_time_zone_it_needs_once(work: Path) -> None:
    source = source_of(work)
    ref = only(source)
    before = work.read_bytes().decode()
    berlin = "".join(f"{line}\r\n" for line in BERLIN)
    zoned = "DTSTART;TZID=Europe/Berlin:20260303T100000"
    etag = stored(source, ref, "standup").etag
    new = source.put(
        ref, "lunch", calendar(berlin, event("lunch", "Lunch", start=zoned)), expected_etag=None
    )
    assert new.uid == "lunch" and new.href == f"{work}#lunch" and new.etag != etag
    assert "TZID:Europe/Berlin" in new.ics
    source.put(ref, "tea", calendar(berlin, event("tea", "Tea", start=zoned)), expected_etag=None)
    text = work.read_bytes().decode()
    expected_end = berlin + event("lunch", "Lunch", start=zoned) + event("tea", "Tea", start=zoned)
    assert text == before.replace("END:VCALENDAR\r\n", expected_end + "END:VCALENDAR\r\n")
    assert text.count("BEGIN:VTIMEZONE") == 1
    assert set(summaries(source, ref)) == {"standup", "review", "todo-1", "lunch", "tea"}


def test_creating_an_event_whose_uid_is_taken_is_a_conflict(work: Path) -> None:
    source = source_of(work)
    ref = only(source)
    before = work.read_bytes()
    with pytest.raises(Conflict, match=r"changed since Hearth read it.*nothing was written"):
        source.put(ref, "review", calendar(event("review", "Again")), expected_etag=None)
    assert work.read_bytes() == before


def test_a_delete_removes_the_event_with_its_overrides_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "series.ics"
    series = event("weekly", "Weekly", "RRULE:FREQ=WEEKLY;COUNT=5")
    moved = event(
        "weekly", "Moved one", "RECURRENCE-ID:20260309T090000Z", start="DTSTART:20260310T090000Z"
    )
    path.write_text(
        calendar(event("keep", "Keep"), series, moved, event("also", "Also")), newline=""
    )
    source = source_of(path)
    ref = only(source)
    source.delete(ref, stored(source, ref, "weekly"))
    assert path.read_bytes().decode() == calendar(event("keep", "Keep"), event("also", "Also"))
    last = stored(source, ref, "keep")
    source.delete(ref, last)
    source.delete(ref, stored(source, ref, "also"))
    assert path.read_bytes().decode() == calendar()
    assert source.objects(ref) == ([], [])


def test_a_file_another_app_changed_since_it_was_read_is_never_overwritten(work: Path) -> None:
    source = source_of(work)
    ref = only(source)
    review = stored(source, ref, "review")
    theirs = work.read_bytes().decode().replace("SUMMARY:Standup", "SUMMARY:Standup (moved)")
    work.write_bytes(theirs.encode())  # another calendar app, meanwhile
    with pytest.raises(Conflict, match=r"changed since Hearth read it.*nothing was written"):
        source.put(ref, "review", calendar(event("review", "Mine")), expected_etag=review.etag)
    with pytest.raises(Conflict, match="changed since Hearth read it"):
        source.delete(ref, review)
    assert work.read_bytes().decode() == theirs
    assert summaries(source, ref)["standup"] == "Standup (moved)"


def test_an_event_that_is_gone_cannot_be_updated(work: Path) -> None:
    source = source_of(work)
    ref = only(source)
    etag = stored(source, ref, "review").etag
    with pytest.raises(EventNotFound, match="no event with UID lost"):
        source.put(ref, "lost", calendar(event("lost", "Lost")), expected_etag=etag)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (calendar(event("other", "Other")), "must hold UID review only"),
        (calendar(event("review", "R"), event("extra", "E")), "must hold UID review only"),
        (calendar(event("review", "R", start="DTSTART:tomorrow")), "not read"),
        ("SUMMARY:no calendar at all", "not an iCalendar file"),
    ],
)
def test_new_event_text_that_is_not_just_that_event_is_refused(
    work: Path, text: str, message: str
) -> None:
    source = source_of(work)
    ref = only(source)
    before = work.read_bytes()
    with pytest.raises(BadCalendarData, match=message):
        source.put(ref, "review", text, expected_etag=stored(source, ref, "review").etag)
    assert work.read_bytes() == before


def test_a_file_with_unreadable_parts_is_read_but_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "mixed.ics"
    broken = event("broken", "Broken", start="DTSTART:not-a-date")
    path.write_text(calendar(event("good", "Good"), broken, name="Mixed"), newline="")
    before = path.read_bytes()
    source = source_of(path)
    ref = only(source)
    objects, problems = source.objects(ref)
    assert [obj.uid for obj in objects] == ["good"]
    assert len(problems) == 1 and problems[0].where == str(path)
    assert not ref.writable
    good = objects[0]
    with pytest.raises(ReadOnlyCalendar, match=r"could not read.*nothing was written"):
        source.put(ref, "good", calendar(event("good", "Better")), expected_etag=good.etag)
    with pytest.raises(ReadOnlyCalendar, match="could not read"):
        source.put(ref, "new", calendar(event("new", "New")), expected_etag=None)
    with pytest.raises(ReadOnlyCalendar, match="will not rewrite it"):
        source.delete(ref, good)
    assert path.read_bytes() == before


def test_a_read_only_file_or_folder_is_not_written(work: Path) -> None:
    source = source_of(work)
    before = work.read_bytes()
    for locked, mode in ((work, 0o444), (work.parent, 0o555)):
        original = stat.S_IMODE(locked.stat().st_mode)
        locked.chmod(mode)
        try:
            with as_a_user():
                ref = only(source)
                assert not ref.writable
                obj = stored(source, ref, "review")
                with pytest.raises(ReadOnlyCalendar, match="read-only"):
                    source.put(
                        ref, "review", calendar(event("review", "X")), expected_etag=obj.etag
                    )
                with pytest.raises(ReadOnlyCalendar):
                    source.delete(ref, obj)
        finally:
            locked.chmod(original)
    assert work.read_bytes() == before
    assert only(source).writable


def test_a_rewrite_keeps_the_files_permissions_and_owner(work: Path) -> None:
    work.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(work, 1234, 5678)
    source = source_of(work)
    ref = only(source)
    source.put(
        ref,
        "review",
        calendar(event("review", "X")),
        expected_etag=stored(source, ref, "review").etag,
    )
    status = work.stat()
    assert stat.S_IMODE(status.st_mode) == 0o640
    if os.geteuid() == 0:
        assert (status.st_uid, status.st_gid) == (1234, 5678)


def test_a_missing_or_unreadable_file_is_a_clear_error(work: Path) -> None:
    source = source_of(work.parent)
    ref = only(source)
    work.chmod(0)
    try:
        with as_a_user():
            with pytest.raises(
                CalendarError, match=re.escape(f"could not read {work}: Permission denied")
            ):
                source.objects(ref)
            assert [(c.name, c.writable) for c in source.calendars()] == [
                ("Work", False)
            ]  # named as when it was read
    finally:
        work.chmod(0o644)
    work.unlink()
    with pytest.raises(CalendarNotFound, match=re.escape(f"no granted calendar file is at {work}")):
        source.objects(ref)


def test_only_granted_files_are_read_or_written(tmp_path: Path, work: Path) -> None:
    granted = tmp_path / "granted"
    granted.mkdir()
    (granted / "inside.ics").write_text(calendar(event("in", "In")))
    (granted / "link.ics").symlink_to(work)  # leads out of the granted folder
    source = source_of(granted)
    assert [c.name for c in source.calendars()] == ["inside"]
    outside = CalendarRef("Work", "ics", str(work))
    with pytest.raises(CalendarNotFound):
        source.objects(outside)
    with pytest.raises(CalendarNotFound):
        source.put(outside, "x", calendar(event("x", "X")), expected_etag=None)
    with pytest.raises(CalendarNotFound):
        source.objects(CalendarRef("inside", "caldav", str(granted / "inside.ics")))


def test_a_file_that_is_not_utf8_is_read_but_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "old.ics"
    path.write_bytes(calendar(event("cafe", "Café"), name="Old").encode("latin-1"))
    before = path.read_bytes()
    source = source_of(path)
    ref = only(source)
    cafe = stored(source, ref, "cafe")
    with pytest.raises(ReadOnlyCalendar, match="not UTF-8"):
        source.put(ref, "cafe", calendar(event("cafe", "Cafe")), expected_etag=cafe.etag)
    assert path.read_bytes() == before
