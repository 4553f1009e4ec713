"""SIGKILL a process rewriting a big ICS file, again and again: the file is always whole.

A child (`crash_writer.main`, forked by `tests.fixtures.forked`) updates one event of a calendar
of a few hundred events through the real `IcsFileSource.put`, alternating between two versions,
so the file is always either version A or version B. The parent kills it at random moments, or
the moment a temporary copy appears (mid-write), reading the file throughout as another program
would; after each kill the file must be exactly A or B and read without problems. The same loop
with a plain `open(path, "wb").write` instead is killed the moment the file is seen cut short,
and leaves a torn file: the guard is what keeps the file whole.

Last, `write_atomically` on its own: a file changed just before the replace, the copies killed
writers leave behind, and the permissions of a new file.
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hearth.connectors.calendar.atomic import (
    FileChanged,
    Fingerprint,
    fingerprint,
    is_temporary,
    write_atomically,
)
from hearth.connectors.calendar.ics import read_calendar
from hearth.connectors.calendar.local import IcsFileSource
from tests.connectors.calendar import crash_writer
from tests.fixtures import forked

pytestmark = [pytest.mark.slow, pytest.mark.alone]

UID = "crash-target"
EVENTS = 300
RUNS = 50
NAIVE_ATTEMPTS = 10
MAX_DELAY_S = 0.5
WATCH_LIMIT_S = 3.0
READY_TIMEOUT_S = 30.0
SEED = 20260615


@dataclass
class BigCalendar:
    """The calendar file, its two whole versions, and the new event texts that make them."""

    path: Path
    versions: dict[str, bytes]  # sha256 -> the file's bytes
    event_files: tuple[Path, Path]

    def version_of(self, data: bytes) -> str | None:
        """Which version `data` is ("A", "B"), or None for a torn file."""
        names = dict(zip(self.versions, "AB", strict=True))
        return names.get(hashlib.sha256(data).hexdigest())


def _event(uid: str, number: int, summary: str) -> list[str]:
    day = 1 + number % 28
    about = f"Meeting {number} about the quarterly plan, room {number % 40}. " * 4
    return [
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20260101T000000Z",
        f"DTSTART:202603{day:02}T{8 + number % 9:02}0000Z",
        "DURATION:PT45M",
        f"SUMMARY:{summary}",
        f"DESCRIPTION:{about.strip()}",
        "END:VEVENT",
    ]


def _calendar(events: list[list[str]], name: str | None = "Big") -> str:
    header = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Some Other App//EN"]
    named = [f"X-WR-CALNAME:{name}"] if name else []
    lines = header + named + [line for event in events for line in event] + ["END:VCALENDAR"]
    return "".join(line + "\r\n" for line in lines)


@pytest.fixture
def big(tmp_path: Path) -> BigCalendar:
    folder = tmp_path / "calendars"
    folder.mkdir()
    others = [_event(f"event-{n}", n, f"Event {n}") for n in range(EVENTS)]
    # The two versions differ in length, so a file of any other size is torn.
    targets = (_event(UID, 0, "Target, first"), _event(UID, 0, "Target, second version"))
    texts = [_calendar([*others, target]).encode() for target in targets]
    path = folder / "big.ics"
    path.write_bytes(texts[0])
    event_files = (tmp_path / "first.ics", tmp_path / "second.ics")
    for event_file, target in zip(event_files, targets, strict=True):
        event_file.write_text(_calendar([target], name=None))
    return BigCalendar(path, {hashlib.sha256(t).hexdigest(): t for t in texts}, event_files)


def start_writer(big: BigCalendar, mode: str, run_dir: Path) -> forked.Child:
    """Start the child and wait until it has read the calendar and starts writing."""
    run_dir.mkdir()
    out, err = run_dir / "writer.out", run_dir / "writer.err"
    out.touch()
    first, second = big.event_files
    arguments = [str(big.path), mode, str(first), str(second)]
    process = forked.start(crash_writer.main, arguments, out, err)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while "ready" not in out.read_text() and process.poll() is None:
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise AssertionError("the writer never got ready")
        time.sleep(0.002)
    assert process.poll() is None, err.read_text()
    return process


def died_of_the_kill(run_dir: Path) -> bool:
    """Whether the writer only ever stopped because it was killed (no error of its own)."""
    errors = run_dir / "writer.err"
    return not errors.exists() or "Traceback" not in errors.read_text()


def kill_when(process: forked.Child, now: Callable[[], bool], limit_s: float) -> None:
    """SIGKILL the child as soon as `now()` says so, or after `limit_s` seconds."""
    deadline = time.monotonic() + limit_s
    try:
        while not now() and time.monotonic() < deadline:
            pass
    finally:  # a failed check must not leave the writer running either
        process.kill()
        process.wait()


def temporaries(folder: Path, process: forked.Child | None = None) -> list[str]:
    """The temporary copies in `folder` (only those `process` made, if given)."""
    mark = f".hearth-{process.pid}-" if process else ""
    return [p.name for p in folder.iterdir() if is_temporary(p.name) and mark in p.name]


def copy_appeared(folder: Path, process: forked.Child) -> Callable[[], bool]:
    """Whether `process` is writing a temporary copy now: it is mid-write."""
    return lambda: bool(temporaries(folder, process))


def one_write_s(source: IcsFileSource, big: BigCalendar) -> float:
    """How long one write of the calendar takes here now: A to B and back, halved."""
    [calendar] = source.calendars()
    stored = source.objects(calendar)[0][0]
    started = time.monotonic()
    for event_file in (*big.event_files[::-1], *big.event_files[::-1]):  # ends as it began
        stored = source.put(calendar, UID, event_file.read_text(), expected_etag=stored.etag)
    return (time.monotonic() - started) / 4


def test_a_put_turns_one_version_into_the_other_byte_for_byte(big: BigCalendar) -> None:
    source = IcsFileSource(lambda: [big.path.parent])
    [calendar] = source.calendars()
    [a, b] = big.versions.values()
    stored = source.objects(calendar)[0][0]
    for event_file, expected in zip(big.event_files[::-1], (b, a), strict=True):
        stored = source.put(calendar, UID, event_file.read_text(), expected_etag=stored.etag)
        assert big.path.read_bytes() == expected


def test_a_killed_writer_leaves_the_old_or_the_new_file_whole(
    big: BigCalendar, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    folder = big.path.parent
    source = IcsFileSource(lambda: [folder])
    seen: Counter[str] = Counter()

    def whole_on_reading() -> bool:  # another program reading meanwhile sees a whole file too
        assert big.version_of(big.path.read_bytes()) is not None
        return False

    def just_written() -> bool:  # the first write has landed: kill right after it
        version = big.version_of(big.path.read_bytes())
        assert version is not None
        return version == "B"

    # Kills land up to a few writes in, however slow the machine is just now (a busy one
    # would otherwise always kill the first write, and never see the new version).
    max_delay = max(MAX_DELAY_S, 4 * one_write_s(source, big))

    for run in range(RUNS):
        run_dir = tmp_path / f"run-{run}"
        process = start_writer(big, "atomic", run_dir)
        if run % 2:
            kill_when(process, copy_appeared(folder, process), WATCH_LIMIT_S)
        elif run % 10 == 4:
            # However busy the machine, some kills must come after a whole write.
            kill_when(process, just_written, WATCH_LIMIT_S)
        else:
            delay = rng.uniform(0, max_delay)
            kill_when(process, whole_on_reading, delay)
        assert died_of_the_kill(run_dir), (run_dir / "writer.err").read_text()
        data = big.path.read_bytes()
        version = big.version_of(data)
        assert version is not None, f"run {run}: the file is neither version"
        assert read_calendar(data, where=str(big.path)).problems == []
        assert [c.location for c in source.calendars()] == [str(big.path)]  # leftovers unseen
        seen[f"version {version}"] += 1
        seen["killed mid-write (a temporary copy left)"] += bool(temporaries(folder, process))
    print(dict(seen))
    assert seen["version A"] and seen["version B"], seen
    assert seen["killed mid-write (a temporary copy left)"] >= 5, seen
    [calendar] = source.calendars()
    stored = source.objects(calendar)[0][0]
    source.put(calendar, UID, big.event_files[0].read_text(), expected_etag=stored.etag)
    assert temporaries(folder) == []  # the next write swept what killed writers left


def test_a_plain_write_killed_mid_way_leaves_a_torn_file(big: BigCalendar, tmp_path: Path) -> None:
    """What the atomic write guards against: the same loop, writing in place, tears the file."""
    whole_sizes = {len(data) for data in big.versions.values()}
    original = next(iter(big.versions.values()))
    torn = []
    for attempt in range(NAIVE_ATTEMPTS):
        big.path.write_bytes(original)
        run_dir = tmp_path / f"attempt-{attempt}"
        process = start_writer(big, "naive", run_dir)
        kill_when(process, lambda: big.path.stat().st_size not in whole_sizes, WATCH_LIMIT_S)
        assert died_of_the_kill(run_dir), (run_dir / "writer.err").read_text()
        data = big.path.read_bytes()
        if big.version_of(data) is None:
            torn.append(f"attempt {attempt}: {len(data)} of {len(original)} bytes")
            break
    print(torn)
    assert torn, f"no torn file in {NAIVE_ATTEMPTS} killed plain writes"


def test_a_file_changed_just_before_the_replace_is_left_as_the_other_app_wrote_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cal.ics"
    path.write_text("version one")
    read = fingerprint(path)
    path.write_text("version two, longer")  # between Hearth's read and its replace
    with pytest.raises(FileChanged):
        write_atomically(path, b"Hearth's version", unchanged_since=read)
    assert path.read_text() == "version two, longer"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.ics"]  # no copy left behind


def test_a_write_sweeps_the_copies_only_killed_writers_left(tmp_path: Path) -> None:
    path = tmp_path / "cal.ics"
    path.write_text("old")
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(gone.stdout)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = tmp_path / f".cal.ics.hearth-{dead_pid}-0123456789ab.tmp"
        live = tmp_path / f".cal.ics.hearth-{alive.pid}-0123456789ab.tmp"
        ancient = tmp_path / f".cal.ics.hearth-{alive.pid}-ba9876543210.tmp"
        for leftover in (dead, live, ancient):
            leftover.write_text("half written")
        os.utime(ancient, (1, 1))  # older than any writer takes: a reused process id
        write_atomically(path, b"new")
        assert path.read_text() == "new"
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["cal.ics", live.name])
    finally:
        alive.kill()
        alive.wait()


def test_a_new_file_gets_the_usual_permissions_and_a_fingerprint(tmp_path: Path) -> None:
    path = tmp_path / "new.ics"
    write_atomically(path, b"BEGIN:VCALENDAR")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    status = path.stat()
    digest = hashlib.sha256(b"BEGIN:VCALENDAR").hexdigest()
    assert fingerprint(path) == Fingerprint(status.st_mtime_ns, status.st_size, digest)
