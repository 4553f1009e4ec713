"""Kill -9 a real writer process at random moments; every acknowledged write must survive."""

from __future__ import annotations

import concurrent.futures
import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hearth.store import AuditLog, ConversationStore, IntentLog, open_database
from tests.app.store import crash_writer
from tests.app.store.crash_writer import expected_message
from tests.fixtures.sigkill import kill_after_ready

pytestmark = [pytest.mark.slow, pytest.mark.alone]

CHAINS = 2  # independent databases killed in parallel, one per core
RUNS_PER_CHAIN = 26
MAX_DELAY_S = 0.25
SEED = 20240611


@dataclass
class Acks:
    """What the writers acknowledged, accumulated over every run against one database."""

    runs: dict[int, int] = field(default_factory=dict)  # conversation id -> run
    messages: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    audit: dict[int, str] = field(default_factory=dict)  # row id -> call id
    intents: set[int] = field(default_factory=set)
    executed: set[int] = field(default_factory=set)

    def read(self, lines: list[str]) -> None:
        for line in lines:
            kind, *values = line.split()[1:]
            if kind == "conversation":
                self.runs[int(values[0])] = int(values[1])
            elif kind == "message":
                self.messages[int(values[0])].add(int(values[1]))
            elif kind == "audit":
                self.audit[int(values[0])] = values[1]
            elif kind == "intent":
                self.intents.add(int(values[0]))
            else:
                self.executed.add(int(values[0]))


def kill_at_random(db_path: Path, run: int, delay: float) -> list[str]:
    """Start a writer, SIGKILL it `delay` seconds after its first ack; its complete ack lines."""
    run_dir = db_path.with_name(f"run-{run}")
    run_dir.mkdir()
    text = kill_after_ready(crash_writer.main, [db_path, run], run_dir, delay, ready="ack ")
    # A line cut short by the kill was never fully acknowledged.
    return text.splitlines()[: text.count("\n")]


def verify(db_path: Path, acks: Acks) -> int:
    """Check every acknowledged row, then reconcile; the number of intents left `intended`."""
    with open_database(db_path) as db:
        assert db.integrity_check() == ["ok"]
        conversations, audit, intents = ConversationStore(db), AuditLog(db), IntentLog(db)
        for conversation, run in acks.runs.items():
            stored = conversations.messages(conversation)
            acked = acks.messages[conversation]
            assert acked <= set(range(len(stored)))
            # At most one write can have committed without its ack reaching us.
            assert len(stored) <= max(acked, default=-1) + 2
            assert stored == [expected_message(run, seq) for seq in range(len(stored))]
        rows = {entry.id: entry for entry in audit.entries()}
        assert all(rows[row].call_id == call for row, call in acks.audit.items())
        assert all(intents.get(i).state == "executed" for i in acks.executed)
        left = db.query("SELECT count(*) FROM intents WHERE state = 'intended'")[0][0]
        unknown = intents.reconcile()
        assert db.query("SELECT count(*) FROM intents WHERE state = 'intended'")[0][0] == 0
        # Earlier runs' unknowns were resolved below, and a writer has one intent in flight.
        assert left == len(unknown) <= 1
        assert not {i.id for i in unknown} & acks.executed
        for intent in unknown:  # as the user would, after checking Sent
            intents.resolve(intent.id, "failed", "not found in Sent")
        return int(left)


def run_chain(db_path: Path, chain: int) -> tuple[int, int]:
    """Kill writers against one database again and again; (runs, intents reconciled)."""
    rng = random.Random(SEED + chain)
    acks, reconciled = Acks(), 0
    for n in range(RUNS_PER_CHAIN):
        run = chain * 1000 + n
        acks.read(kill_at_random(db_path, run, rng.uniform(0, MAX_DELAY_S)))
        reconciled += verify(db_path, acks)
    assert acks.runs and acks.audit and acks.executed
    return RUNS_PER_CHAIN, reconciled


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    paths = []
    for chain in range(CHAINS):
        (tmp_path / f"chain-{chain}").mkdir()
        paths.append(tmp_path / f"chain-{chain}" / "hearth.db")
    with concurrent.futures.ThreadPoolExecutor(CHAINS) as pool:
        results = list(pool.map(run_chain, paths, range(CHAINS)))
    assert sum(runs for runs, _ in results) >= 50
    # Kills land between intend() and executed() often; some must have been reconciled.
    assert sum(reconciled for _, reconciled in results) > 0
