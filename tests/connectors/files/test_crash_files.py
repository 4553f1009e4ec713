"""Kill -9 the real files connector mid-batch, again and again: every file it moved or trashed
has an undo record, and undo puts every one back.

Each run forks a child (`tests.fixtures.forked`) that runs `child` below: it opens the chain's
database and granted folder, and in one turn moves or trashes 20 files with the real
`files.move` or `files.trash`, slowed by a pause around each item (in the child only) so that
kills land mid-batch; in some runs item k also fails. The parent SIGKILLs it at a random moment,
then opens `Assistant.open(...)` as the next Hearth would and checks the files, the audit log, the
intents and undo.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import errno
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from hearth import SettingsStore
from hearth.connectors.files import FileLibrary, FilesConnector, trash, writing
from hearth.connectors.files.transfer import move_entry
from hearth.store import NotFound, open_database
from tests.connectors.files.test_journal import (
    MoveEntry,
    contents,
    make_files,
    open_assistant,
    outcomes,
    run_call,
)
from tests.fixtures.sigkill import kill_after_ready

pytestmark = [pytest.mark.slow, pytest.mark.alone]

FILES = 20
PAUSE_S = 0.008
CHAINS = 3  # independent databases and folders, killed in parallel
RUNS_PER_CHAIN = 18
MAX_DELAY_S = 0.26  # a whole turn takes about 0.2 s here
TRASH_RUNS = 0.4  # share of runs that trash instead of moving
FAILING_RUNS = 0.2  # share of runs in which one item also fails (a FilesError)
SEED = 20260614


def library(chain: Path) -> FileLibrary:
    """The chain's settings and index, the same in the child and in the parent."""
    return FileLibrary(SettingsStore(chain / "settings"), chain / "files-index.sqlite3")


def slowed(real: MoveEntry, fail_at: int) -> MoveEntry:
    """`real` with a pause around each call, failing with EIO on call `fail_at` (1-based)."""
    calls = [0]

    def patched(folder: int, name: str, target_folder: int, target: str) -> None:
        calls[0] += 1
        time.sleep(PAUSE_S / 2)
        if calls[0] == fail_at:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(folder, name, target_folder, target)
        time.sleep(PAUSE_S / 2)

    return patched


def child(chain: str, run_dir: str, tool: str, fail_at: str) -> None:
    """The process that gets killed: one turn, one batch call, the user allows it."""
    for module in (writing, trash):
        setattr(module, "move_entry", slowed(move_entry, int(fail_at)))  # noqa: B010
    connector = FilesConnector(library(Path(chain)))
    assistant = open_assistant(connector, open_database(Path(chain) / "hearth.db"))
    print("ready", flush=True)
    started = time.monotonic()
    ran = run_call(assistant, tool, **arguments(Path(run_dir), tool))
    print(f"finished {ran.outcome} {time.monotonic() - started:.3f}", flush=True)
    assistant.close()
    connector.close()


def arguments(run_dir: Path, tool: str) -> dict[str, Any]:
    sources = [str(run_dir / "inbox" / f"note-{n:02}.txt") for n in range(FILES)]
    if tool == "files.trash":
        return {"paths": sources}
    return {"sources": sources, "destination": str(run_dir / "archive")}


def kill_at_random(chain: Path, run_dir: Path, tool: str, fail_at: int, delay: float) -> str:
    """Run one batch in a child and SIGKILL it `delay` seconds after it is ready."""
    arguments = [str(chain), str(run_dir), tool, str(fail_at)]
    return kill_after_ready(child, arguments, run_dir, delay)


def verify(chain: Path, run_dir: Path, tool: str, before: dict[str, bytes]) -> str:
    """Reopen as the next Hearth would; check every changed file is undoable, undo; a verdict."""
    inbox, archive = run_dir / "inbox", run_dir / "archive"
    away = set(before) - set(contents(inbox))
    if tool == "files.move":  # nothing lost or doubled
        assert contents(archive) == {name: before[name] for name in away}
    connector = FilesConnector(library(chain))
    assistant = open_assistant(connector, open_database(chain / "hearth.db"))
    try:
        assert assistant.db.integrity_check() == ["ok"]
        call_id = find_call(assistant, run_dir, tool)
        if call_id is None:
            assert not away
            return "killed before the call"
        audit = outcomes(assistant, call_id)
        intent = intent_state(assistant, call_id)
        assert audit[0] == "proposed" and len(audit) == 2
        assert audit[-1] in ("executed", "partial", "unknown"), audit
        # The undo entry settles first, then the intent, then the audit log.
        assert intent == audit[-1] or (
            audit[-1] == "unknown" and intent in ("executed", "partial", "no intent")
        )
        if intent == "no intent":  # killed between the decision and the intent: nothing ran
            assert not away
            return "killed before the tool ran"
        try:
            entry = assistant.undo_log.get(call_id)
        except NotFound:
            entry = None
        key, original = ("trashed", "original") if tool == "files.trash" else ("moved", "from")
        if "executed" in (audit[-1], intent):  # never executed without its whole undo
            assert entry is not None and entry.state == "done"
            assert len(entry.result[key]) == FILES and not entry.result.get(f"not_{key}")
        if away:
            assert entry is not None and entry.state in ("done", "partial", "unknown")
            failed = entry.result.get(f"not_{key}", [])
            recorded = [item for item in entry.result[key] if item not in failed]
            assert away <= {Path(item[original]).name for item in recorded}
        if entry is not None:
            assistant.undo(call_id)
            assert outcomes(assistant, f"undo:{call_id}") == ["proposed", "executed"]
        assert contents(inbox) == before and not list(archive.iterdir())
        assert trash_records_from(inbox) == []
        if audit[-1] != "unknown":
            return f"finished ({audit[-1]})"
        return "killed mid-batch" if 0 < len(away) < FILES else f"killed with {len(away)} away"
    finally:
        assistant.close()
        connector.close()


def trash_records_from(folder: Path) -> list[str]:
    """The records in the trash (shared by the chains) of items that came from `folder`."""
    found = []
    for record in (Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "info").glob("*.trashinfo"):
        with contextlib.suppress(FileNotFoundError):  # another chain's, restored meanwhile
            if f"\nPath={quote(str(folder))}/" in record.read_text():
                found.append(record.name)
    return found


def find_call(assistant: Any, run_dir: Path, tool: str) -> str | None:
    wanted = arguments(run_dir, tool)
    calls = [e.call_id for e in assistant.activity() if e.tool == tool and e.arguments == wanted]
    return calls[0] if calls else None


def intent_state(assistant: Any, call_id: str) -> str:
    rows = assistant.db.query("SELECT state FROM intents WHERE call_id = ?", (call_id,))
    return str(rows[0]["state"]) if rows else "no intent"


def run_chain(root: Path, chain_number: int) -> Counter[str]:
    rng = random.Random(SEED + chain_number)
    chain = root / f"chain-{chain_number}"
    chain.mkdir()
    granting = library(chain)
    granting.grant(chain)
    granting.close()
    verdicts: Counter[str] = Counter()
    for run in range(RUNS_PER_CHAIN):
        run_dir = chain / f"run-{run}"
        before = make_files(run_dir / "inbox", FILES)
        (run_dir / "archive").mkdir()
        tool = "files.trash" if rng.random() < TRASH_RUNS else "files.move"
        fail_at = rng.randrange(1, FILES + 1) if rng.random() < FAILING_RUNS else -1
        kill_at_random(chain, run_dir, tool, fail_at, rng.uniform(0, MAX_DELAY_S))
        verdict = verify(chain, run_dir, tool, before)
        verdicts[f"{tool}: {verdict}"] += 1
    return verdicts


def test_every_file_a_killed_batch_moved_or_trashed_has_an_undo_record(tmp_path: Path) -> None:
    with concurrent.futures.ThreadPoolExecutor(CHAINS) as pool:
        results = list(pool.map(run_chain, [tmp_path] * CHAINS, range(CHAINS)))
    verdicts = sum(results, Counter[str]())
    print(dict(verdicts))
    assert verdicts.total() >= 50
    mid_batch = sum(n for verdict, n in verdicts.items() if verdict.endswith("killed mid-batch"))
    assert mid_batch >= 20, verdicts
    assert verdicts["files.trash: killed mid-batch"] >= 5, verdicts
