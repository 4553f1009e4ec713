"""The card latency of tests/bench/card_latency.py, in the real main window (`--window`).

The window sends each request through its own controller and inference thread, exactly as
typing it would. The card counts as there once the controller has put the asking card into
the transcript (`consent_did_ask`, on the main thread) and the window has been painted with it
(a synchronous `repaint`); the card is then answered "deny" through the controller, as its
button does.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hearth.agent import Deny
from hearth.assistant import Assistant

if TYPE_CHECKING:
    from hearth.ui.main_window import MainWindow
    from tests.bench.card_latency import CheckClock, Proposer, Timing

TURN_LIMIT_MS = 30_000


def window_cards(
    assistant: Assistant,
    model: Proposer,
    clock: CheckClock,
    calls: Sequence[tuple[str, dict[str, Any]]],
    rounds: int,
) -> dict[str, list[Timing]]:
    """Each call proposed `rounds` times in the main window; the timings by tool."""
    from PySide6.QtWidgets import QApplication

    from hearth.ui import theme
    from hearth.ui.context import UiContext
    from hearth.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply_theme(app, theme.LIGHT)
    context = UiContext(assistant)
    main = MainWindow(context, pages=[])
    main.resize(1100, 760)
    main.show()
    timings: dict[str, list[Timing]] = {tool: [] for tool, _ in calls}
    try:
        for _ in range(rounds):
            for tool, arguments in calls:
                timings[tool].append(_one_card(main, model, clock, tool, arguments))
    finally:
        main.close()
        context.shutdown()
    return timings


def _one_card(
    main: MainWindow, model: Proposer, clock: CheckClock, tool: str, arguments: dict[str, Any]
) -> Timing:
    from PySide6.QtCore import QEventLoop, QTimer

    from tests.bench.card_latency import Timing

    controller = main.controller
    loop = QEventLoop()
    seen: list[Timing] = []

    def asked(call_id: str) -> None:
        in_transcript = time.perf_counter() - model.done_at
        main.repaint()
        drawn = time.perf_counter() - model.done_at
        seen.append(Timing.of(drawn, in_transcript, clock.spent))
        controller.answer(call_id, Deny("measured only"))

    controller.consent_did_ask.connect(asked)
    controller.turn_did_finish.connect(loop.quit)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    try:
        controller.new_conversation()
        model.propose(tool, arguments)
        clock.spent = 0.0
        if not controller.send(f"please use {tool}"):
            raise SystemExit(f"the window would not send the request for {tool}")
        timer.start(TURN_LIMIT_MS)
        loop.exec()
    finally:
        controller.consent_did_ask.disconnect(asked)
        controller.turn_did_finish.disconnect(loop.quit)
    if not seen:
        raise SystemExit(f"{tool} {arguments} never reached a card in the window")
    return seen[0]
