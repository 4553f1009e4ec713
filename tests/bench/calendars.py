"""Calendar benchmark: prints JSON. Run: .venv/bin/python tests/bench/calendars.py [--repeats N]

On a generated five-year calendar (5,000 one-off events, 200 daily, weekly and monthly series
with EXDATEs and moved instances, in Berlin, New York, Tokyo and UTC; tests/bench/calendar_data
.py) held by a real Radicale server on loopback, measured side by side in one run:
- the first sync, straight after the load (Radicale's own item cache still cold), with the
  week listed from another thread every second while it runs; then a second refresh, which
  resumes a sync that was cut short;
- listing one day, one week and one month, interleaved, as medians and p95 in ms, four ways:
  from the server (`CalDavSource.objects` and `expand.occurrences`), from the cache as before
  the time-span index (`expand.occurrences` over every cached object: "cached_full_parse"),
  from the cache through the index (`CalendarLibrary.occurrences`: "cached"), and from the
  .ics file parsed afresh ("ics_file"); with the ratios, and whether the indexed listing is
  exactly the full parse's;
- the free-slot path: the same listing plus `freebusy.busy_periods` and `free_slots` (one
  hour, working hours), as `find_free_slot` does it;
- an incremental refresh after another client changed one event (RFC 6578 sync token), and a
  refresh with nothing changed;
- the same calendar as a granted .ics file: its first sync, a refresh of the unchanged file,
  and how many times the file was parsed over two refreshes and the listings.

Loading is not measured. Radicale checks every new item's UID against the whole collection,
so 5,200 single PUTs take minutes (growing with the square of the count); by default the
objects are written straight into Radicale's storage folder, one file per object as Radicale
keeps them. `--load put` uploads the whole calendar in one PUT on the collection instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, and this file would stand in for the
# standard library's `calendar` (which http.cookiejar and email import); the repository root
# goes there instead, before anything else is imported.
# ruff: noqa: E402
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parents[1]))

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from hearth import SettingsStore
from hearth.connectors.calendar import file_snapshots
from hearth.connectors.calendar.caldav_source import CalDavSource
from hearth.connectors.calendar.expand import occurrences
from hearth.connectors.calendar.freebusy import WorkingHours, busy_periods, free_slots
from hearth.connectors.calendar.library import SYNCING, CalendarLibrary
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.objects import CalendarRef, Occurrence, Problem, StoredObject
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.bench.calendar_data import changed, generate, load_onto

BERLIN = ZoneInfo("Europe/Berlin")
NAME = "Bench"
RANGES = {  # in the middle of the five years, where every kind of series is running
    "day": (datetime(2026, 6, 16, tzinfo=BERLIN), timedelta(days=1)),
    "week": (datetime(2026, 6, 15, tzinfo=BERLIN), timedelta(days=7)),
    "month": (datetime(2026, 6, 1, tzinfo=BERLIN), timedelta(days=30)),
}
SLOW_REQUEST_S = 120.0
SLOT = timedelta(hours=1)
NOTES = [
    "server, cached_full_parse and ics_file parse and expand every object for any range; "
    "cached reads only the objects whose stored span overlaps the range",
    "freebusy_ms is the listing plus busy periods plus the free one-hour slots in working hours; "
    "the generated calendar is booked solid in working hours, so the search finds none and "
    "looks through the whole range (its slowest case)",
    "p95 of a few repeats is close to the slowest run; raise --repeats for a steadier one",
    "load_average is the machine's (1, 5, 15 min) at the start: other work on it slows all "
    "ways alike, and the ratios come from one run",
    "other_client_put_ms is a fresh CalDavSource's PUT: with no URL cached for the event it "
    "first finds it with a UID text-match REPORT over the collection",
    "first_sync runs as Hearth runs it (a background sync's requests wait up to 5 min; a "
    "write's 20 s), straight after the load, while Radicale has not read the events yet",
]
WAYS = ("server", "cached_full_parse", "cached", "ics_file")
Listing = tuple[list[Occurrence], list[Problem]]


@dataclass(frozen=True)
class Scene:
    """What the ways list from: the synced library, the server, the .ics file."""

    library: CalendarLibrary
    source: CalDavSource
    ref: CalendarRef
    ics_path: Path


def timed(action: Callable[[], object]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return (time.perf_counter() - started) * 1000, result


def listed(way: str, scene: Scene, start: datetime, end: datetime) -> dict:
    """One way of listing the range (see the module docstring), then its free slots."""
    started = time.perf_counter()
    if way == "cached":
        return slots(started, started, scene.library.occurrences(start, end), start, end)
    if way == "server":
        objects = scene.source.objects(scene.ref)[0]
    elif way == "cached_full_parse":
        objects = scene.library.store.objects()
    else:  # a fresh source each time, so the file is read and parsed as after a change to it
        files = IcsFileSource(lambda: [scene.ics_path])
        objects = files.objects(files.calendars()[0])[0]
    fetched = time.perf_counter()
    listing = occurrences([(o.calendar, o.ics) for o in objects], start, end, BERLIN)
    return slots(started, fetched, listing, start, end)


def slots(started: float, fetched: float, listing: Listing, start: datetime, end: datetime) -> dict:
    listed = time.perf_counter()
    busy = busy_periods(listing[0], BERLIN)
    free = free_slots(busy, start, end, SLOT, BERLIN, WorkingHours())
    done = time.perf_counter()
    return {
        "fetch_ms": (fetched - started) * 1000,
        "list_ms": (listed - started) * 1000,
        "freebusy_ms": (done - started) * 1000,
        "occurrences": len(listing[0]),
        "problems": len(listing[1]),
        "busy_periods": len(busy),
        "free_slots": len(free),
        "listing": listing[0],
    }


def summary(runs: list[dict], key: str) -> dict[str, float]:
    values = [run[key] for run in runs]
    p95 = (
        statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    )
    return {"median_ms": round(statistics.median(values), 2), "p95_ms": round(p95, 2)}


def compare(runs: dict[str, list[dict]]) -> dict[str, Any]:
    """Medians and p95 of each way, server / cached and full parse / cached, for listing and
    for free slots; and whether every way listed exactly what the full parse listed."""
    cached = runs["cached"]
    report: dict[str, Any] = {
        "occurrences": cached[0]["occurrences"],
        "busy_periods": cached[0]["busy_periods"],
        "free_slots": cached[0]["free_slots"],
        "problems": {way: found[0]["problems"] for way, found in runs.items()},
        "server_fetch": summary(runs["server"], "fetch_ms"),
        "ics_read": summary(runs["ics_file"], "fetch_ms"),
        "cached_equals_full_parse": all(
            run["listing"] == runs["cached_full_parse"][0]["listing"]
            for found in runs.values()
            for run in found
        ),
    }
    for path in ("list", "freebusy"):
        found = {way: summary(ways, f"{path}_ms") for way, ways in runs.items()}
        report[path] = {**found}
        for way in ("server", "cached_full_parse"):
            for stat in ("median", "p95"):
                ratio = found[way][f"{stat}_ms"] / found["cached"][f"{stat}_ms"]
                report[path][f"{way}_over_cached_{stat}"] = round(ratio, 1)
    return report


def first_sync(library: CalendarLibrary) -> dict[str, Any]:
    """The first refresh, with the week listed from this thread every second meanwhile."""
    start, length = RANGES["week"]
    done = threading.Event()
    took: list[float] = []
    syncing = threading.Thread(target=lambda: (took.append(timed(library.refresh)[0]), done.set()))
    syncing.start()
    seen: list[dict[str, Any]] = []
    while not done.wait(1.0):
        try:
            ms, (found, problems) = timed(lambda: library.occurrences(start, start + length))
        except Exception as error:  # a listing that fails while syncing is what this looks for
            seen.append({"failed": f"{type(error).__name__}: {error}"})
            continue
        note = [p.message for p in problems if p.component == SYNCING]
        seen.append({"ms": round(ms, 1), "occurrences": len(found), "note": note[:1]})
    syncing.join()
    state = library.store.status()[0]
    resumed_ms = timed(library.refresh)[0] if state.progress or not state.online else None
    return {
        "ms": round(took[0], 1),
        "online_after": state.online,
        "error_after": state.error,
        "progress_after": state.progress,
        "second_refresh_ms": None if resumed_ms is None else round(resumed_ms, 1),
        "listings_meanwhile": len(seen),
        "listings_failed_meanwhile": sum("failed" in item for item in seen),
        "listings_sample": seen[:: max(1, len(seen) // 6)],
    }


def ics_library(scratch: Path, ics_path: Path) -> dict[str, Any]:
    """The calendar as a granted .ics file: syncs, and the parses they and listings took."""
    parses: list[str] = []
    parse = file_snapshots.read_calendar

    def counted(data: bytes | str, *, where: str, time_limit_s: float = 5.0) -> Any:
        parses.append(where)
        return parse(data, where=where, time_limit_s=time_limit_s)

    file_snapshots.read_calendar = counted  # type: ignore[assignment]
    try:
        store = SettingsStore(scratch / "ics-connectors")
        store.save("calendar", CalendarSettings(ics_files=[str(ics_path)], time_zone=BERLIN.key))
        library = CalendarLibrary(store, scratch / "ics-cache.sqlite")
        first_ms = timed(library.refresh)[0]
        after_first = len(parses)
        again_ms = timed(library.refresh)[0]
        for start, length in RANGES.values():
            library.occurrences(start, start + length)
        library.refresh()
        library.store.close()
    finally:
        file_snapshots.read_calendar = parse  # type: ignore[assignment]
    return {
        "first_sync_ms": round(first_ms, 1),
        "refresh_unchanged_ms": round(again_ms, 1),
        "parses_in_first_sync": after_first,
        "parses_after_3_refreshes_and_3_listings": len(parses),
    }


def incremental(library: CalendarLibrary, server: RadicaleServer, ref: CalendarRef) -> dict:
    """Another client changes one event; the next refresh fetches it by sync token."""
    old: StoredObject = library.store.find("single-00007", NAME)
    writer = CalDavSource(server.url, USER, PASSWORD, timeout_s=SLOW_REQUEST_S)
    put_ms, _ = timed(
        lambda: writer.put(ref, old.uid, changed(old.ics, "Moved by phone"), expected_etag=old.etag)
    )
    refresh_ms, _ = timed(library.refresh)
    seen = "SUMMARY:Moved by phone" in library.store.find(old.uid, NAME).ics
    unchanged_ms, _ = timed(library.refresh)
    return {
        "other_client_put_ms": round(put_ms, 1),
        "incremental_refresh_ms": round(refresh_ms, 1),
        "change_seen_in_cache": seen,
        "refresh_nothing_changed_ms": round(unchanged_ms, 1),
    }


def measure(scratch: Path, options: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    load_average = [round(value, 2) for value in os.getloadavg()]
    calendar = generate(options.one_off)
    ics_path = scratch / "bench.ics"
    ics_path.write_text(calendar.as_ics_file(NAME), newline="")
    server = RadicaleServer(scratch / "radicale").start()
    try:
        load_ms, _ = timed(lambda: load_onto(server, calendar, NAME, options.load))
        store = SettingsStore(scratch / "connectors")
        settings = CalendarSettings(server=server.url, username=USER, time_zone=BERLIN.key)
        store.save("calendar", settings)
        library = CalendarLibrary(store, scratch / "calendar-cache.sqlite")
        library.use_password_for_session(PASSWORD)  # no keyring read per call
        first = first_sync(library)
        source = CalDavSource(server.url, USER, PASSWORD, timeout_s=SLOW_REQUEST_S)
        ref = next(ref for ref in source.calendars() if ref.name == NAME)
        listing_ms, (objects, problems) = timed(lambda: source.objects(ref))
        cached_count = len(library.store.objects(NAME))
        scene = Scene(library, source, ref, ics_path)
        runs: dict[str, dict[str, list[dict]]] = {n: {w: [] for w in WAYS} for n in RANGES}
        for _ in range(options.repeats):  # interleaved, so drift in machine load hits all alike
            for name, (start, length) in RANGES.items():
                for way in WAYS:
                    runs[name][way].append(listed(way, scene, start, start + length))
        sync = incremental(library, server, ref)
        library.stop()
        library.store.close()
    finally:
        server.stop()
    return {
        "cpu_count": os.cpu_count(),
        "load_average": load_average,
        "calendar": {
            "objects": len(calendar.objects),
            "one_off_events": calendar.one_off,
            "series": calendar.series,
            "series_with_exdates": calendar.with_exdates,
            "series_with_overrides": calendar.with_overrides,
            "objects_by_zone": calendar.zones,
            "ics_file_bytes": ics_path.stat().st_size,
        },
        "repeats": options.repeats,
        "ranges": {
            name: f"{start.date()} + {length.days} d" for name, (start, length) in RANGES.items()
        },
        "load_method": options.load,
        "load_s_not_measured": round(load_ms / 1000, 2),
        "first_sync": first,
        "server_listing_ms": round(listing_ms, 1),
        "server_listing_objects": len(objects),
        "server_listing_problems": len(problems),
        "cached_objects_after_sync": cached_count,
        **sync,
        "per_range": {name: compare(found) for name, found in runs.items()},
        "ics_file_granted": ics_library(scratch, ics_path),
        "total_run_s": round(time.perf_counter() - started, 1),
        "notes": NOTES,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--one-off", type=int, default=5000, help="one-off events (series: 200)")
    parser.add_argument("--load", choices=("files", "put"), default="files")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-calendar-") as scratch:
        os.environ["HEARTH_HOME"] = str(Path(scratch) / "hearth-home")
        report = measure(Path(scratch), options)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
