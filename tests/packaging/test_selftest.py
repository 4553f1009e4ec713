"""`hearth --selftest` from a dev install: a real turn with the demo tool, and the model checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hearth.cli.selftest import SelftestFailed, check_model
from hearth.models.lookup import Sidecar, sha256_file, write_sidecar

pytestmark = pytest.mark.model


def run_selftest(*arguments: str) -> subprocess.CompletedProcess[str]:
    hearth = Path(sys.executable).with_name("hearth")
    return subprocess.run(
        [str(hearth), "--selftest", *arguments],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_selftest_calls_the_demo_tool_under_an_allow_rule(test_gguf: Path) -> None:
    done = run_selftest("--model", str(test_gguf))
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["ok"] is True and report["frozen"] is False
    assert report["model"]["path"] == str(test_gguf)
    assert report["call"]["tool"] == "selftest.echo"
    assert report["call"]["outcome"] == "executed"
    assert report["call"]["result"] == report["call"]["arguments"]["text"]
    assert report["gate"]["allowed"] is True and report["gate"]["by"] == "rule"
    assert "selftest.echo" in report["gate"]["rule"]
    assert report["cpu"]["variant_loaded"] == "lib"
    assert "CPU :" in report["system_info"]
    assert set(report["entry_points"]["plugins"]) >= {"files", "calendar", "mail", "system"}
    assert report["entry_points"]["desktop"] == "loaded"
    assert report["seconds"]["first_token"] > 0
    print(f"\ndev install: {json.dumps(report['seconds'])}")


def test_selftest_refuses_a_truncated_model(test_gguf: Path, tmp_path: Path) -> None:
    truncated = tmp_path / test_gguf.name
    with test_gguf.open("rb") as source, truncated.open("wb") as copy:
        copy.write(source.read(test_gguf.stat().st_size // 2))
    done = run_selftest("--model", str(truncated))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("Error: ") and truncated.name in done.stderr, done.stderr
    assert done.stdout == ""


@pytest.fixture
def recorded(test_gguf: Path, tmp_path: Path) -> Path:
    """A copy of the test model with the install record the build writes next to it."""
    copy = tmp_path / "models" / test_gguf.name
    copy.parent.mkdir()
    shutil.copyfile(test_gguf, copy)
    write_sidecar(copy, Sidecar(None, None, copy.name, sha256_file(copy), copy.stat().st_size))
    return copy


def test_the_hash_is_checked_once_then_trusted_until_the_file_changes(recorded: Path) -> None:
    assert check_model(recorded, strict=True)["hashed"] == "now"
    assert check_model(recorded, strict=True)["hashed"] == "before"
    data = recorded.read_bytes()
    # Same size, one byte changed: the stamp no longer matches, so it hashes and catches it.
    recorded.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    with pytest.raises(SelftestFailed, match="does not match the sha256"):
        check_model(recorded, strict=True)


def test_a_truncated_recorded_model_is_named_as_truncated(recorded: Path) -> None:
    assert check_model(recorded, strict=True)["sha256_ok"] is True
    with recorded.open("r+b") as handle:
        handle.truncate(recorded.stat().st_size - 4096)
    with pytest.raises(SelftestFailed, match="truncated"):
        check_model(recorded, strict=True)


def test_a_bundled_model_without_a_record_fails(test_gguf: Path, tmp_path: Path) -> None:
    copy = tmp_path / test_gguf.name
    shutil.copyfile(test_gguf, copy)
    with pytest.raises(SelftestFailed, match="no record"):
        check_model(copy, strict=True)
    assert check_model(copy, strict=False)["hashed"] == "no record"
