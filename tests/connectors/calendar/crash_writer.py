"""The process `test_crash_ics` kills: it rewrites one event of a big ICS file, over and over.

`test_crash_ics` runs `main` in a forked child (`tests.fixtures.forked`). It updates the event
whose new versions are in the files FIRST and SECOND through the real `IcsFileSource.put`,
alternating between them until it is killed. MODE "naive" replaces the atomic write with a
plain `open(path, "wb").write(data)`, to show what the atomic one guards against.
"""

from __future__ import annotations

from pathlib import Path

from hearth.connectors.calendar import atomic
from hearth.connectors.calendar.local import IcsFileSource

UID = "crash-target"


def naive_write(
    path: Path, data: bytes, *, unchanged_since: atomic.Fingerprint | None = None
) -> None:
    """What many programs do: truncate the file in place, then write the new bytes into it."""
    with open(path, "wb") as file:  # noqa: PTH123 (the plain write is the point)
        file.write(data)


def main(calendar_path: str, mode: str, first: str, second: str) -> None:
    if mode == "naive":
        setattr(atomic, "write_atomically", naive_write)  # noqa: B010
    versions = [Path(first).read_bytes().decode(), Path(second).read_bytes().decode()]
    source = IcsFileSource(lambda: [Path(calendar_path)])
    [calendar] = source.calendars()
    objects, _ = source.objects(calendar)
    etag = objects[0].etag
    print("ready", flush=True)
    for turn in range(1_000_000):
        etag = source.put(calendar, UID, versions[turn % 2], expected_etag=etag).etag
