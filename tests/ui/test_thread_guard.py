"""The guard that fails UI tests leaving a QThread running really sees such a thread."""

from __future__ import annotations

from PySide6.QtCore import QThread

from tests.ui.conftest import running_qthreads


def test_a_running_qthread_is_seen_and_a_stopped_one_is_not() -> None:
    thread = QThread()
    thread.start()  # an event loop that runs until quit()
    try:
        assert thread in running_qthreads()
    finally:
        thread.quit()
        assert thread.wait(5000)
    assert thread not in running_qthreads()
