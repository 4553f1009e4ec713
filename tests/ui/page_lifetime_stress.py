"""Stress child for test_page_lifetime: widgets are deleted while their background ops finish.

Run as `python -X faulthandler -m tests.ui.page_lifetime_stress [ROUNDS] [SEED]` with
HEARTH_HOME pointing at a scratch folder. A segfault kills this process, not pytest, which is
why it runs on its own. Each round opens and deletes every side page of the main window (all
of them inside a real main window every tenth round), then starts a burst of `run_op`s on a
dedicated pool and deletes their receivers, some from inside handlers, while results arrive.
It prints `rounds completed: N/ROUNDS` and exits 1 if a handler ran for a deleted receiver,
an exception escaped into Qt, or an error was shown to the user.
"""

from __future__ import annotations

import random
import sys
import time
from functools import partial
from types import TracebackType

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QThreadPool
from PySide6.QtWidgets import QApplication, QWidget

from hearth.assistant import Assistant
from hearth.ui import theme
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.ops import run_op
from hearth.ui.pages import PAGES
from tests.ui.pages.kit import Desk, DeskPlugin

ROUNDS = 200
WINDOW_EVERY = 10
RECEIVERS = 16
OPS_PER_RECEIVER = 12
WORKERS = 8


class Tally:
    """What the handlers saw; any `late` handler or `escaped` exception fails the run."""

    def __init__(self) -> None:
        self.handled = 0
        self.late = 0
        self.escaped = 0
        self.shown: list[str] = []

    def landed(self, receiver: QWidget, _outcome: object) -> None:
        self.handled += 1
        if not shiboken6.isValid(receiver):
            self.late += 1
            print("a handler ran for a deleted receiver", file=sys.stderr, flush=True)

    def excepthook(
        self, kind: type[BaseException], error: BaseException, trace: TracebackType | None
    ) -> None:
        self.escaped += 1
        sys.__excepthook__(kind, error, trace)


def settle(app: QApplication, seconds: float) -> None:
    """Process events (and so deliver finished ops) for about `seconds`."""
    deadline = time.perf_counter() + seconds
    app.processEvents()
    while time.perf_counter() < deadline:
        app.processEvents()


def delete(widget: QWidget, rng: random.Random) -> None:
    """Delete now, or as the event loop does after `deleteLater`: both happen to users."""
    if not shiboken6.isValid(widget):
        return
    if rng.random() < 0.5:
        shiboken6.delete(widget)
    else:
        widget.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def churn_pages(app: QApplication, context: UiContext, rng: random.Random) -> None:
    """Open each page and delete it while the ops it started on showing are under way."""
    for page_class in PAGES:
        host = QWidget()
        page_class(context, host)
        host.show()
        settle(app, rng.uniform(0, 0.012))
        delete(host, rng)


def churn_window(app: QApplication, context: UiContext, rng: random.Random) -> None:
    """Open every page through a real main window, then close and delete it mid-load."""
    window = MainWindow(context)
    window.show()
    for page_class in PAGES:
        window.open_page(page_class.title)
        settle(app, rng.uniform(0, 0.004))
    window.close()
    delete(window, rng)


def work(delay: float, fail: bool) -> str:
    time.sleep(delay)
    if fail:
        raise ValueError("expected by the stress test")
    return "done"


def churn_ops(app: QApplication, pool: QThreadPool, rng: random.Random, tally: Tally) -> None:
    """Many short ops per receiver; receivers die while results arrive, some inside handlers."""
    hosts = [QWidget() for _ in range(RECEIVERS)]
    doomed = hosts[:]
    rng.shuffle(doomed)

    def landed(receiver: QWidget, outcome: object) -> None:
        tally.landed(receiver, outcome)
        if doomed and rng.random() < 0.3:
            victim = doomed.pop()
            if victim is not receiver.parent():
                delete(victim, rng)

    for host in hosts:
        receiver = QWidget(host)
        handler = partial(landed, receiver)
        for _ in range(OPS_PER_RECEIVER):
            job = partial(work, rng.uniform(0, 0.0004), rng.random() < 0.3)
            run_op(pool, job, receiver=receiver, success=handler, failure=handler)
    while doomed:
        settle(app, rng.uniform(0, 0.0003))  # its handlers may take some of the doomed
        if doomed:
            delete(doomed.pop(), rng)
    pool.waitForDone()
    settle(app, 0)
    for host in hosts:
        delete(host, rng)


def run(rounds: int, seed: int) -> Tally:
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply_theme(app, theme.LIGHT)
    tally = Tally()
    sys.excepthook = tally.excepthook
    rng = random.Random(seed)
    assistant = Assistant.open(plugins=[DeskPlugin(Desk())], entry_points=False)
    context = UiContext(assistant)
    context.errors.error_shown.connect(lambda doing, text: tally.shown.append(f"{doing}: {text}"))
    pool = QThreadPool()
    pool.setMaxThreadCount(WORKERS)
    completed = 0
    try:
        for number in range(rounds):
            if number % WINDOW_EVERY == 0:
                churn_window(app, context, rng)
            else:
                churn_pages(app, context, rng)
            churn_ops(app, pool, rng, tally)
            completed += 1
    finally:
        pool.waitForDone()
        context.shutdown()
        settle(app, 0)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assistant.close()
        print(f"rounds completed: {completed}/{rounds}", flush=True)
    return tally


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else ROUNDS
    seed = int(argv[1]) if len(argv) > 1 else random.randrange(2**32)
    print(f"seed: {seed}", flush=True)
    tally = run(rounds, seed)
    print(f"handlers: {tally.handled}, late: {tally.late}, escaped: {tally.escaped}", flush=True)
    for shown in tally.shown:
        print(f"error shown: {shown}", flush=True)
    return 1 if tally.late or tally.escaped or tally.shown else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
