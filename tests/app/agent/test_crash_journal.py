"""Kill -9 a real process mid-batch, again and again: every moved file can be put back.

Each run forks a child (`tests.fixtures.forked`) that runs `child` below: it opens the
database, and one turn moves 20 files with the demo batch tool, a few ms per file. The parent
SIGKILLs it at a random moment, then opens the database as the next Hearth would
(`Assistant.open(...)`, which reconciles) and checks the files, the audit log, the intents and undo.
"""

from __future__ import annotations

import concurrent.futures
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from hearth.store import NotFound, open_database
from tests.app.agent.test_journal import (
    Moves,
    intent_state,
    make_files,
    open_assistant,
    run_batch,
)
from tests.fixtures.sigkill import kill_after_ready

pytestmark = [pytest.mark.slow, pytest.mark.alone]

FILES = 20
PAUSE_MS = 6
CHAINS = 3  # independent databases killed in parallel
RUNS_PER_CHAIN = 20
MAX_DELAY_S = 0.18  # a whole turn takes about 0.14 s here
FAILING_RUNS = 0.2  # share of runs whose batch also fails part-way (ToolFailure)
SEED = 20260601


def child(db_path: str, folder: str, destination: str, fail_at: str) -> None:
    """The process that gets killed: one turn, one batch call, the user allows it."""
    assistant = open_assistant(open_database(Path(db_path)))
    print("ready", flush=True)
    started = time.monotonic()
    ran = run_batch(
        assistant,
        folder=folder,
        destination=destination,
        fail_at=int(fail_at),
        pause_ms=PAUSE_MS,
    )
    print(f"finished {ran.outcome} {time.monotonic() - started:.3f}", flush=True)
    assistant.close()


def kill_at_random(db_path: Path, run_dir: Path, fail_at: int, delay: float) -> str:
    """Run one batch in a child and SIGKILL it `delay` seconds after it is ready."""
    arguments = [str(db_path), str(run_dir / "inbox"), str(run_dir / "archive"), str(fail_at)]
    return kill_after_ready(child, arguments, run_dir, delay)


def verify(db_path: Path, run_dir: Path, names: list[str]) -> str:
    """Reopen as the next Hearth would; check every moved file is undoable, then undo; a verdict."""
    inbox, archive = run_dir / "inbox", run_dir / "archive"
    moved = {p.name for p in archive.iterdir()}
    assert moved | {p.name for p in inbox.iterdir()} == set(names)  # nothing lost or doubled
    assistant = open_assistant(open_database(db_path))
    try:
        assert assistant.db.integrity_check() == ["ok"]
        rows = [e for e in assistant.activity() if e.arguments.get("folder") == str(inbox)]
        if not rows:
            assert not moved
            return "killed before the call"
        call_id = rows[0].call_id
        audit = [e.outcome for e in assistant.audit.entries(call_id=call_id)]
        intent = intent_state(assistant, call_id)
        assert audit[0] == "proposed" and audit[-1] in ("executed", "partial", "unknown")
        assert audit.count("proposed") == 1 and len(audit) == 2
        # The undo entry settles first, then the intent, then the audit log: a kill in between
        # leaves the audit `unknown` while the intent already says how it ended.
        assert intent == audit[-1] or (
            audit[-1] == "unknown" and intent in ("executed", "partial", "no intent")
        )
        if intent == "no intent":  # killed between the decision and the intent: nothing ran
            assert audit[-1] == "unknown" and not moved
            return "killed before the tool ran"
        try:
            entry = assistant.undo_log.get(call_id)
        except NotFound:
            entry = None
        if "executed" in (audit[-1], intent):  # never executed without its whole undo
            assert entry is not None and entry.state == "done"
            assert len(entry.result["moved"]) == FILES
        if moved:
            assert entry is not None and entry.state in ("done", "partial", "unknown")
            result: Moves = entry.result
            assert moved <= {Path(item["from"]).name for item in result["moved"]}
        if entry is not None:
            assistant.undo(call_id)
            assert assistant.audit.entries(call_id=f"undo:{call_id}")[-1].outcome == "executed"
        assert sorted(p.name for p in inbox.iterdir()) == names and not list(archive.iterdir())
        if audit[-1] != "unknown":
            return f"finished ({audit[-1]})"
        return "killed mid-batch" if 0 < len(moved) < FILES else f"killed with {len(moved)} moved"
    finally:
        assistant.close()


def run_chain(root: Path, chain: int) -> Counter[str]:
    rng = random.Random(SEED + chain)
    db_path = root / f"chain-{chain}" / "hearth.db"
    verdicts: Counter[str] = Counter()
    for run in range(RUNS_PER_CHAIN):
        run_dir = root / f"chain-{chain}" / f"run-{run}"
        _, _, names = make_files(run_dir, FILES)
        fail_at = rng.randrange(1, FILES) if rng.random() < FAILING_RUNS else -1
        kill_at_random(db_path, run_dir, fail_at, rng.uniform(0, MAX_DELAY_S))
        verdicts[verify(db_path, run_dir, names)] += 1
    return verdicts


def test_every_file_a_killed_batch_moved_has_an_undo_record(tmp_path: Path) -> None:
    with concurrent.futures.ThreadPoolExecutor(CHAINS) as pool:
        results = list(pool.map(run_chain, [tmp_path] * CHAINS, range(CHAINS)))
    verdicts = sum(results, Counter[str]())
    print(dict(verdicts))
    assert verdicts.total() >= 50
    assert verdicts["killed mid-batch"] >= 20, verdicts
