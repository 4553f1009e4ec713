"""UI test fixtures: offscreen Qt (or Xvfb in CI), a real core, screenshots, no leaked threads."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6

# Before Qt starts: tests run offscreen unless the run asks for a real X server (Xvfb in CI).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QApplication, QWidget

SCREENSHOTS = Path(os.environ.get("HEARTH_SCREENSHOTS", "build/screenshots"))


@pytest.fixture(autouse=True, scope="session")
def hearth_theme(qapp: QApplication) -> None:
    """Every UI test sees the app as users do: Hearth's light theme and stylesheet."""
    from hearth.ui import theme

    theme.apply_theme(qapp, theme.LIGHT)


@pytest.fixture(autouse=True)
def no_leaked_qthreads(qapp: object) -> Iterator[None]:
    """Fail any test that leaves a QThread running (napari does the same)."""
    yield
    running = running_qthreads()
    if running:
        for thread in running:
            thread.quit()
            thread.wait(2000)
        pytest.fail(f"test left {len(running)} QThread(s) running: {running}")


def running_qthreads() -> list[QThread]:
    """Every QThread made from Python that is still running."""
    gc.collect()
    # A wrapper whose C++ thread Qt already deleted cannot be running (and cannot be asked).
    threads = [thread for thread in _live_qobjects(QThread) if shiboken6.isValid(thread)]
    return [thread for thread in threads if thread.isRunning()]


def _live_qobjects(kind: type) -> list:
    found = []
    for obj in gc.get_objects():
        try:
            if isinstance(obj, kind):
                found.append(obj)
        except ReferenceError:
            continue
    return found


def save_screenshot(widget: QWidget, name: str) -> Path:
    """Grab `widget` once pending layout events ran; save it in the screenshots folder."""
    QApplication.processEvents()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    assert widget.grab().save(str(path)), f"could not save {path}"
    return path
