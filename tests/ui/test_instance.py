"""One window per data folder: a second real `hearth` start reaches the first and exits, and a
name left behind by a killed window does not stop the next one from listening."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from PySide6.QtNetwork import QLocalSocket
from PySide6.QtWidgets import QWidget

from hearth.paths import data_dir
from hearth.ui.instance import (
    ALREADY_OPEN,
    SHOW,
    InstanceServer,
    ask_running_to_show,
    server_name,
)

HEARTH = Path(sys.executable).with_name("hearth")
LISTENER = """
import sys
from PySide6.QtCore import QCoreApplication
from hearth.ui.instance import InstanceServer

app = QCoreApplication([])
server = InstanceServer(sys.argv[1])
print("listening" if server.listening else server.error, flush=True)
app.exec()
"""


def test_the_name_is_the_data_folders(tmp_path: Path) -> None:
    assert server_name(tmp_path / "a") == server_name(tmp_path / "b" / ".." / "a")
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")


def test_a_second_hearth_start_brings_the_first_window_forward_and_exits(qtbot) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    server = InstanceServer(server_name(data_dir()))
    assert server.listening, server.error
    server.show_requested.connect(window.show)
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    second = subprocess.Popen(
        [str(HEARTH)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        with qtbot.waitSignal(server.show_requested, timeout=60_000):
            pass
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=60_000)
    finally:
        if second.poll() is None:
            second.kill()
        out, err = second.communicate()
        server.close()
    assert second.returncode == 0, err
    assert out.splitlines() == [ALREADY_OPEN]
    assert window.isVisible()
    assert not (data_dir() / "hearth.db").exists()  # the second start opened nothing


def test_a_killed_windows_name_does_not_block_the_next_window(qtbot, tmp_path: Path) -> None:
    name = server_name(tmp_path)
    crashed = subprocess.Popen(
        [sys.executable, "-c", LISTENER, name], stdout=subprocess.PIPE, text=True
    )
    assert crashed.stdout is not None
    assert crashed.stdout.readline().strip() == "listening"
    os.kill(crashed.pid, signal.SIGKILL)
    crashed.wait()
    assert not ask_running_to_show(name, timeout_ms=500)  # nobody answers a stale name

    server = InstanceServer(name)
    try:
        assert server.listening, server.error
        socket = QLocalSocket()
        socket.connectToServer(name)
        assert socket.waitForConnected(5000)
        with qtbot.waitSignal(server.show_requested, timeout=10_000):
            socket.write(SHOW)
            socket.flush()
        socket.disconnectFromServer()
    finally:
        server.close()


def test_real_windows_one_open_a_second_start_exits_and_a_killed_ones_name_is_taken_over(
    qtbot,
) -> None:
    """The whole path through `hearth`'s main(), with real window processes, offscreen."""
    name = server_name(data_dir())
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}

    def start(quit_after_ms: int) -> subprocess.Popen[str]:
        run_env = {**env, "HEARTH_QUIT_AFTER_MS": str(quit_after_ms)}
        return subprocess.Popen(
            [str(HEARTH)], env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    first = start(120_000)
    try:
        qtbot.waitUntil(lambda: ask_running_to_show(name, timeout_ms=200), timeout=60_000)
        second = subprocess.run([str(HEARTH)], env=env, capture_output=True, text=True, timeout=60)
        assert (second.returncode, second.stdout.splitlines()) == (0, [ALREADY_OPEN])
        assert first.poll() is None  # the first window stays open
    finally:
        first.kill()  # SIGKILL: its name is left behind, as after a crash
        first.communicate()
    third = start(500)
    out, err = third.communicate(timeout=120)
    assert third.returncode == 0, err
    assert ALREADY_OPEN not in out
    assert "cannot find this window" not in err  # it took the crashed window's name over
