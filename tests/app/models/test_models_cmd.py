from __future__ import annotations

import _thread
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.models_cmd import format_progress, models, run_interruptibly
from hearth.errors import ChecksumMismatch, DownloadCancelled, DownloadError, ModelFileError
from hearth.models.download import DownloadProgress
from tests.app.models.conftest import write_gguf
from tests.fixtures.fake_hub import FakeHub
from tests.fixtures.spoofing import A_FEW, assert_safe


def _run(*args: str) -> tuple[int, str, str, BaseException | None]:
    result = CliRunner().invoke(models, list(args))
    return result.exit_code, result.stdout, result.stderr, result.exception


def test_list_shows_the_catalog_with_the_default_marked(models_dir: Path) -> None:
    code, out, _, _ = _run("list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["MODEL", "QUANT", "SIZE", "INSTALLED", "LICENSE"]
    default_line = next(line for line in lines if "botpsy-0.8b-q8_0" in line)
    assert default_line.startswith("*")
    assert " no " in default_line and "apache-2.0" in default_line
    assert "qwen3.5-0.8b-q4_k_m" in out
    assert str(models_dir) in out


def test_import_then_list_and_verify(tiny_gguf: Path, models_dir: Path) -> None:
    code, out, _, _ = _run("import", str(tiny_gguf))
    assert code == 0 and str(models_dir / tiny_gguf.name) in out

    code, out, _, _ = _run("list")
    assert code == 0
    imported = next(line for line in out.splitlines() if tiny_gguf.name in line)
    assert " yes " in imported
    assert imported.split()[1] == "Q8_0"  # the file type in the GGUF header

    code, out, _, _ = _run("verify", str(models_dir / tiny_gguf.name))
    assert code == 0
    assert out.startswith("OK") and "llama" in out and "sha256 matches" in out


@pytest.mark.parametrize("spoof", A_FEW)
def test_a_files_name_is_shown_escaped(tmp_path: Path, models_dir: Path, spoof: str) -> None:
    source = write_gguf(tmp_path / f"tiny {spoof}.Q8_0.gguf")
    for arguments in (["import", str(source)], ["list"], ["verify", str(models_dir / source.name)]):
        # color: click would strip a spoof's ESC sequences from what is not a terminal
        done = CliRunner().invoke(models, arguments, color=True)
        assert done.exit_code == 0, done.output
        assert_safe(done.output, spoof, lines=True)


def test_import_of_a_broken_file_raises_a_hearth_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"junk" * 100)
    code, _, _, exc = _run("import", str(junk))
    assert code == 1
    assert isinstance(exc, ModelFileError) and "not a GGUF file" in str(exc)


@pytest.mark.model  # "All installed models" includes the real SmolLM2 file when present.
def test_verify_all_reports_each_model_and_fails_on_damage(
    tiny_gguf: Path, models_dir: Path, make_gguf: Callable[..., Path]
) -> None:
    _run("import", str(tiny_gguf))
    damaged = models_dir / tiny_gguf.name
    data = bytearray(damaged.read_bytes())
    data[-10] ^= 0xFF
    damaged.write_bytes(bytes(data))
    make_gguf(models_dir / "BotPsy-0.8B.Q8_0.gguf")

    code, out, err, exc = _run("verify")
    assert code == 1
    assert "OK" in out and "BotPsy-0.8B.Q8_0.gguf" in out
    assert "FAILED" in err and tiny_gguf.name in err
    assert exc is not None and "1 of" in str(exc)


def test_verify_one_damaged_model_raises_checksum_mismatch(
    tiny_gguf: Path, models_dir: Path
) -> None:
    _run("import", str(tiny_gguf))
    damaged = models_dir / tiny_gguf.name
    damaged.write_bytes(damaged.read_bytes()[:-4] + b"\x00\x00\x80\x40")
    code, _, _, exc = _run("verify", str(damaged))
    assert code == 1 and isinstance(exc, ChecksumMismatch)


def test_download_prints_progress_on_stderr(
    hub: FakeHub, tmp_path: Path, models_dir: Path, make_gguf: Callable[..., Path]
) -> None:
    data = make_gguf(tmp_path / "src.gguf").read_bytes()
    hub.add_file("BotPsy/BotPsy-0.8B-GGUF", "BotPsy-0.8B.Q8_0.gguf", data)
    code, out, err, _ = _run("download", "botpsy-0.8b-q8_0")
    assert code == 0, err
    assert "100.0%" in err and "MB/s" in err and "ETA" in err
    assert "Installed botpsy-0.8b-q8_0" in out
    assert (models_dir / "BotPsy-0.8B.Q8_0.gguf").is_file()


@pytest.mark.parametrize(
    ("progress", "expected"),
    [
        (DownloadProgress(0, 2_000_000, 0.0, None), "  0.0%  0.0/2.0 MB    0.0 MB/s  ETA --:--"),
        (
            DownloadProgress(500_000_000, 1_000_000_000, 10e6, 4000.0),
            " 50.0%  500.0/1,000.0 MB   10.0 MB/s  ETA 1:06:40",
        ),
    ],
)
def test_format_progress(progress: DownloadProgress, expected: str) -> None:
    assert format_progress(progress) == expected


# The download command, but it also drops a mark file once Ctrl-C has become a cancel request,
# so the test knows when it may let the download go on without racing the signal.
_ANNOUNCING_CANCEL = """
import os, threading
from hearth.cli import models_cmd
from hearth.models import download

real_download = download.download_model

def download_model(entry, *, progress, cancel):
    def mark():
        cancel.wait()
        open(os.environ["CANCEL_MARK"], "w").close()

    threading.Thread(target=mark, daemon=True).start()
    return real_download(entry, progress=progress, cancel=cancel)

download.download_model = download_model  # what `Models.download` calls
models_cmd.models()
"""
# Generous: only a guard against a hang, never the thing that makes the test pass.
_GUARD_S = 60


def _as_at_a_terminal() -> None:
    """Ctrl-C reaches the command as it does at a terminal, even when the tests themselves run
    as a background job, whose children start with SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + _GUARD_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


@pytest.mark.skipif(sys.platform == "win32", reason="sends a real SIGINT")
def test_ctrl_c_cancels_cleanly_and_the_same_command_resumes(
    hub: FakeHub, tmp_path: Path, models_dir: Path, make_gguf: Callable[..., Path]
) -> None:
    data = make_gguf(tmp_path / "src.gguf", n_floats=256 * 1024).read_bytes()
    hub.add_file("BotPsy/BotPsy-0.8B-GGUF", "BotPsy-0.8B.Q8_0.gguf", data)
    # The hub holds the body after 300 KB (one whole 256 KB chunk on disk) until released, so the
    # download cannot finish before Ctrl-C lands, however slow the machine.
    hub.hold_at = 300_000
    part = models_dir / "BotPsy-0.8B.Q8_0.gguf.part"
    mark = tmp_path / "cancel-requested"
    command = [sys.executable, "-c", "from hearth.cli.models_cmd import models; models()"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

    with subprocess.Popen(
        [sys.executable, "-c", _ANNOUNCING_CANCEL, "download", "botpsy-0.8b-q8_0"],
        env={**env, "CANCEL_MARK": str(mark)},
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_at_a_terminal,
    ) as process:
        try:
            _wait_for(lambda: part.exists() and part.stat().st_size > 0, "bytes in the .part file")
            process.send_signal(signal.SIGINT)
            # A command that died of the signal never marks: stop waiting and let the asserts say.
            _wait_for(lambda: mark.exists() or process.poll() is not None, "a cancel request")
        finally:
            hub.release.set()  # The worker sees the cancel at its next chunk.
        _, err = process.communicate(timeout=_GUARD_S)
    assert process.returncode == 130, err
    assert "hearth models download botpsy-0.8b-q8_0` again to resume" in err
    kept = part.stat().st_size
    assert 0 < kept < len(data)

    finished = subprocess.run(
        [*command, "download", "botpsy-0.8b-q8_0"], env=env, capture_output=True, timeout=_GUARD_S
    )
    assert finished.returncode == 0, finished.stderr
    assert hub.file_gets()[-1].range == f"bytes={kept}-"
    assert (models_dir / "BotPsy-0.8B.Q8_0.gguf").read_bytes() == data


@pytest.mark.model
def test_download_of_a_model_from_an_installed_package_says_where_it_is(
    smollm2_path: Path,
) -> None:
    code, out, err, _ = _run("download", "smollm2-135m-test")
    assert code == 0, err
    assert "already available" in out and str(smollm2_path) in out
    assert "pip install" not in out + err


def test_download_without_a_hub_says_so_and_what_to_do_instead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeHub() as stopped:
        url = stopped.url  # nothing listens there once the hub has stopped
    monkeypatch.setenv("HF_ENDPOINT", url)
    code, _, _, exc = _run("download", "botpsy-0.8b-q8_0")
    assert code == 1 and isinstance(exc, DownloadError)
    message = str(exc)
    assert "\n" not in message and f"Could not reach {url}" in message
    assert "connection" in message and "HF_ENDPOINT" in message
    assert "hearth models import FILE" in message


def test_ctrl_c_the_moment_a_download_starts_still_cancels_it_cleanly() -> None:
    """Ctrl-C can land while the worker is still being started (a busy machine makes that
    window long); the download must still be cancelled, never left running unwatched."""
    # Ctrl-C raises KeyboardInterrupt here even when the suite runs as a background job,
    # which starts with SIGINT ignored (and then interrupt_main would do nothing).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_at_start_50_times()
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_at_start_50_times() -> None:
    for _ in range(50):
        cancel = threading.Event()

        def download(cancel: threading.Event = cancel) -> Path:
            _thread.interrupt_main()  # Ctrl-C, as early as it can possibly arrive
            if not cancel.wait(_GUARD_S):
                raise AssertionError("the download was never told to stop")
            raise DownloadCancelled("stopped")

        with pytest.raises(DownloadCancelled):
            run_interruptibly(download, cancel)
