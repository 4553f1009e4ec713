"""Calendar benchmark: prints JSON. Run: .venv/bin/python tests/bench/calendars.py [--repeats N]

On a generated five-year calendar (5,000 one-off events, 200 daily, weekly and monthly series
with EXDATEs and moved instances, in Berlin, New York, Tokyo and UTC; tests/bench/calendar_data
.py) held by a real Radicale server on loopback, measured side by side in one run:
- listing one day, one week and one month: from the server (`CalDavSource.objects` and
  `expand.occurrences`) and from Hearth's offline cache (`CalendarLibrary.occurrences` after a
  refresh), interleaved, as medians and p95 in ms, with the ratio server / cached;
- the free/busy path: the same listing plus `freebusy.busy_periods`;
- the first full refresh (initial sync) and an incremental one after another client changed
  one event (RFC 6578 sync token), and a refresh with nothing changed;
- the same calendar as one local .ics file through `IcsFileSource`: read and expand.

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
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pydantic import SecretStr

from hearth import SettingsStore
from hearth.connectors.calendar.caldav_source import CalDavSource
from hearth.connectors.calendar.expand import occurrences
from hearth.connectors.calendar.freebusy import busy_periods
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.objects import CalendarRef, Occurrence, Problem, StoredObject
from hearth.connectors.calendar.settings import CalendarSettings
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.bench.calendar_data import GeneratedCalendar, changed, generate
from tests.connectors.calendar.kit import other_client, server_calendar

BERLIN = ZoneInfo("Europe/Berlin")
NAME = "Bench"
RANGES = {  # in the middle of the five years, where every kind of series is running
    "day": (datetime(2026, 6, 16, tzinfo=BERLIN), timedelta(days=1)),
    "week": (datetime(2026, 6, 15, tzinfo=BERLIN), timedelta(days=7)),
    "month": (datetime(2026, 6, 1, tzinfo=BERLIN), timedelta(days=30)),
}
SLOW_REQUEST_S = 120.0
NOTES = [
    "each path parses and expands every object for any range, so the range barely matters",
    "p95 of a few repeats is close to the slowest run; raise --repeats for a steadier one",
    "other_client_put_ms is a fresh CalDavSource's PUT: with no URL cached for the event it "
    "first finds it with a UID text-match REPORT over the collection",
    "server_first_listing_ms includes Radicale building its own item cache after the load; it "
    "runs with a 120 s timeout, as it can outlast Hearth's default 20 s on a slow machine",
]
Listing = tuple[list[Occurrence], list[Problem]]


def use_secure_keyring(folder: Path) -> None:
    """An encrypted file keyring, as the tests' `secure_keyring` fixture sets one up."""
    import keyring
    from keyrings.cryptfile.cryptfile import CryptFileKeyring

    backend = CryptFileKeyring()
    backend.time_cost, backend.memory_cost = 1, 1024  # a cheaper KDF; same encryption
    backend.file_path = str(folder / "keyring.cfg")
    backend.keyring_key = "bench master key"
    keyring.set_keyring(backend)


def load(server: RadicaleServer, calendar: GeneratedCalendar, how: str) -> None:
    """Put the calendar on the server as the collection NAME (see the module docstring)."""
    if how == "put":
        client = other_client(server)
        client.principal()
        body = calendar.as_ics_file(NAME)
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        response = client.put(f"{server.url}{USER}/bench/", body, headers)
        if response.status not in (201, 204):
            raise RuntimeError(f"Radicale refused the upload: {response.status}")
        return
    collection = urlsplit(str(server_calendar(server, NAME).url)).path.strip("/")
    folder = server.folder / "collections" / "collection-root" / collection
    if not folder.is_dir():
        raise RuntimeError(f"Radicale's storage has no folder {folder}")
    for uid, ics in calendar.objects:
        (folder / f"{uid}.ics").write_text(ics, newline="")


def timed(action: Callable[[], object]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return (time.perf_counter() - started) * 1000, result


def from_server(source: CalDavSource, ref: CalendarRef, start: datetime, end: datetime) -> dict:
    """Fetch every object, expand the range, then free/busy: milliseconds to each step."""
    started = time.perf_counter()
    objects, _ = source.objects(ref)
    fetched = time.perf_counter()
    listing = occurrences([(o.calendar, o.ics) for o in objects], start, end, BERLIN)
    listed = time.perf_counter()
    busy = busy_periods(listing[0], BERLIN)
    done = time.perf_counter()
    return steps(started, fetched, listed, done, listing, len(busy))


def from_cache(library: CalendarLibrary, start: datetime, end: datetime) -> dict:
    started = time.perf_counter()
    listing = library.occurrences(start, end)
    listed = time.perf_counter()
    busy = busy_periods(listing[0], library.zone())
    done = time.perf_counter()
    return steps(started, started, listed, done, listing, len(busy))


def from_file(path: Path, start: datetime, end: datetime) -> dict:
    """A fresh source each time, so the file is read and parsed as after a change to it."""
    started = time.perf_counter()
    source = IcsFileSource(lambda: [path])
    objects, _ = source.objects(source.calendars()[0])
    read = time.perf_counter()
    listing = occurrences([(o.calendar, o.ics) for o in objects], start, end, BERLIN)
    listed = time.perf_counter()
    busy = busy_periods(listing[0], BERLIN)
    done = time.perf_counter()
    return steps(started, read, listed, done, listing, len(busy))


def steps(
    started: float, fetched: float, listed: float, done: float, listing: Listing, busy: int
) -> dict:
    return {
        "fetch_ms": (fetched - started) * 1000,
        "list_ms": (listed - started) * 1000,
        "freebusy_ms": (done - started) * 1000,
        "occurrences": len(listing[0]),
        "problems": len(listing[1]),
        "busy_periods": busy,
    }


def summary(runs: list[dict], key: str) -> dict[str, float]:
    values = [run[key] for run in runs]
    p95 = (
        statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    )
    return {"median_ms": round(statistics.median(values), 2), "p95_ms": round(p95, 2)}


def compare(server: list[dict], cached: list[dict], ics: list[dict]) -> dict[str, Any]:
    """Medians and p95 of each way, and server / cached, for listing and for free/busy."""
    report: dict[str, Any] = {
        "occurrences": cached[0]["occurrences"],
        "busy_periods": cached[0]["busy_periods"],
        "problems": {"server": server[0]["problems"], "cached": cached[0]["problems"]},
        "server_fetch": summary(server, "fetch_ms"),
        "ics_read": summary(ics, "fetch_ms"),
    }
    for path in ("list", "freebusy"):
        ways = {"server": server, "cached": cached, "ics_file": ics}
        found = {way: summary(runs, f"{path}_ms") for way, runs in ways.items()}
        report[path] = {
            **found,
            "server_over_cached_median": round(
                found["server"]["median_ms"] / found["cached"]["median_ms"], 2
            ),
            "server_over_cached_p95": round(
                found["server"]["p95_ms"] / found["cached"]["p95_ms"], 2
            ),
        }
    counts = {run["occurrences"] for run in server + cached + ics}
    if len(counts) != 1:
        report["occurrence_counts_differ"] = sorted(counts)
    return report


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
    calendar = generate(options.one_off)
    ics_path = scratch / "bench.ics"
    ics_path.write_text(calendar.as_ics_file(NAME), newline="")
    server = RadicaleServer(scratch / "radicale").start()
    try:
        load_ms, _ = timed(lambda: load(server, calendar, options.load))
        patient = CalDavSource(server.url, USER, PASSWORD, timeout_s=SLOW_REQUEST_S)
        ref = next(ref for ref in patient.calendars() if ref.name == NAME)
        cold_ms, (objects, problems) = timed(lambda: patient.objects(ref))  # Radicale's own cache
        source = CalDavSource(server.url, USER, PASSWORD)  # as Hearth makes it
        store = SettingsStore(scratch / "connectors")
        settings = CalendarSettings(
            server=server.url, username=USER, password=SecretStr(PASSWORD), time_zone=BERLIN.key
        )
        store.save("calendar", settings)
        library = CalendarLibrary(store, scratch / "calendar-cache.sqlite")
        initial_ms, _ = timed(library.refresh)
        cached_count = len(library.store.objects(NAME))
        runs: dict[str, dict[str, list[dict]]] = {
            name: {"server": [], "cached": [], "ics": []} for name in RANGES
        }
        cache_reads: list[float] = []
        for _ in range(options.repeats):  # interleaved, so drift in machine load hits all alike
            cache_reads.append(timed(lambda: library.store.objects(NAME))[0])
            for name, (start, length) in RANGES.items():
                runs[name]["server"].append(from_server(source, ref, start, start + length))
                runs[name]["cached"].append(from_cache(library, start, start + length))
                runs[name]["ics"].append(from_file(ics_path, start, start + length))
        sync = incremental(library, server, ref)
        library.stop()
        library.store.close()
    finally:
        server.stop()
    return {
        "cpu_count": os.cpu_count(),
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
        "server_first_listing_ms": round(cold_ms, 1),
        "server_listing_objects": len(objects),
        "server_listing_problems": len(problems),
        "initial_sync_ms": round(initial_ms, 1),
        "cached_objects_after_sync": cached_count,
        **sync,
        "cache_read_all_objects_ms_median": round(statistics.median(cache_reads), 1),
        "per_range": {
            name: compare(way["server"], way["cached"], way["ics"]) for name, way in runs.items()
        },
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
        use_secure_keyring(Path(scratch))
        report = measure(Path(scratch), options)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
