"""The index follows the disk: live events, the polling fallback, rescans, link cycles."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import IndexStatus
from hearth.connectors.files import FileLibrary
from hearth.connectors.files.index import Query
from hearth.connectors.files.watch import FolderWatcher
from tests.conftest import require

SETTLE_SECONDS = 10.0


def names(library: FileLibrary, words: str) -> set[str]:
    return {hit.path.name for hit in library.index.search(Query(words, limit=50), library.roots())}


def eventually(check: Callable[[], bool], timeout: float = SETTLE_SECONDS) -> float:
    """Seconds until `check()` held; fails the test after `timeout`."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            pytest.fail(f"the index did not catch up within {timeout} s")
        time.sleep(0.05)
    return time.monotonic() - started


@pytest.fixture
def live(library: FileLibrary) -> FileLibrary:
    seen: list[IndexStatus] = []
    library.subscribe(seen.append)
    library.start()
    assert library.wait_idle(60)
    assert any(status.state == "scanning" and status.total for status in seen)
    assert library.status().state == "watching"
    return library


def test_edits_moves_and_deletes_reach_the_index(live: FileLibrary, documents: Path) -> None:
    assert names(live, "radiator") == {"letter.docx"}
    (documents / "notes.txt").write_text("Buy pomegranates for the party.\n")
    eventually(lambda: names(live, "pomegranates") == {"notes.txt"})
    assert names(live, "quarterly") == set()

    (documents / "projects" / "archive").mkdir()
    shutil.move(documents / "notes.txt", documents / "projects" / "archive" / "party.txt")
    eventually(lambda: names(live, "pomegranates") == {"party.txt"})
    assert names(live, "notes") == set()

    (documents / "projects" / "archive" / "party.txt").unlink()
    eventually(lambda: names(live, "pomegranates") == set())

    shutil.rmtree(documents / "projects")
    eventually(lambda: names(live, "heron") == set() and names(live, "archive") == set())


def test_new_folders_with_files_are_indexed(live: FileLibrary, documents: Path) -> None:
    fresh = documents / "2026" / "trips"
    fresh.mkdir(parents=True)
    (fresh / "lisbon.md").write_text("Tram 28 to Alfama")
    eventually(lambda: names(live, "alfama") == {"lisbon.md"})


def test_revoking_drops_the_folder(live: FileLibrary, documents: Path) -> None:
    live.revoke(documents)
    assert live.wait_idle(10)
    assert live.index.count() == 0
    assert names(live, "radiator") == set()


def test_a_rescan_catches_what_was_missed(library: FileLibrary, documents: Path) -> None:
    library.scanner.scan(library.roots()[0])
    (documents / "offline-edit.txt").write_text("written while Hearth was closed: quokka")
    (documents / "notes.txt").unlink()
    library.scanner.scan(library.roots()[0])
    assert names(library, "quokka") == {"offline-edit.txt"}
    assert names(library, "quarterly") == set()


def test_symlink_cycles_terminate(library: FileLibrary, documents: Path) -> None:
    (documents / "projects" / "loop").symlink_to(documents)
    (documents / "projects" / "self").symlink_to(documents / "projects")
    started = time.monotonic()
    result = library.scanner.scan(library.roots()[0])
    assert time.monotonic() - started < 10
    assert result.seen == 5  # notes, invoice, letter, projects, plan: links are not entries


WATCH_LIMIT_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from hearth.connectors.files import FileLibrary
    from hearth.connectors.files.index import Query

    folder = Path(sys.argv[1])
    library = FileLibrary(poll_seconds=0.5)
    library.grant(folder)
    library.start()
    library.wait_idle(60)
    status = library.status()
    (folder / "late.txt").write_text("added after the scan: wombat")
    started = time.monotonic()
    found = False
    while time.monotonic() - started < 20 and not found:
        time.sleep(0.1)
        found = bool(library.index.search(Query("wombat"), library.roots()))
    print(json.dumps({"state": status.state, "warnings": list(status.warnings),
                      "found": found, "seconds": round(time.monotonic() - started, 2)}))
    library.close()
    """
)


def test_out_of_inotify_falls_back_to_polling_and_converges(
    documents: Path, hearth_home: Path
) -> None:
    """A real inotify limit: a user namespace whose inotify instance limit is zero."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        require("Linux user namespaces (unshare) to lower the inotify limit")
    shell = 'echo 0 > /proc/sys/user/max_inotify_instances && exec "$0" -c "$1" "$2"'
    done = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            shell,
            sys.executable,
            WATCH_LIMIT_SCRIPT,
            str(documents),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0 and "unshare" in done.stderr:
        require(f"user namespaces are not available here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["state"] == "polling"
    assert any("checks it for changes every" in w for w in report["warnings"])
    assert report["found"], report


def test_the_polling_indexer_never_indexes_through_a_link(
    library: FileLibrary, documents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced polling: a folder linked in, and a subfolder swapped for a link, stay unseen."""

    def no_inotify(self: FolderWatcher) -> None:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(FolderWatcher, "_live_observer", no_inotify)
    outside = tmp_path / "outside"
    (outside / "deeper").mkdir(parents=True)
    (outside / "secret.txt").write_text("the wombat password")
    (outside / "deeper" / "more.txt").write_text("wombat bank details")
    library.start()
    assert library.wait_idle(60)
    assert library.status().state == "polling"
    (documents / "linked").symlink_to(outside)
    (documents / "projects").rename(tmp_path / "projects-was")
    (documents / "projects").symlink_to(outside)
    (documents / "first.txt").write_text("numbat")
    eventually(lambda: names(library, "numbat") == {"first.txt"})
    # Changes inside the linked folders only: no event for a folder Hearth would rescan whole.
    time.sleep(1.5)
    (outside / "secret.txt").write_text("the wombat password, changed")
    (outside / "deeper" / "more.txt").write_text("wombat bank details, changed")
    (documents / "notes.txt").write_text("dingo")
    eventually(lambda: names(library, "dingo") == {"notes.txt"})
    assert library.wait_idle(10)
    assert names(library, "wombat") == set()
    assert names(library, "heron") == set()  # what projects held left with it
