"""The visible countdown on a waiting card: "Denies itself in 4:32", ticking on the main thread."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from hearth.ui.chat.entries import Countdown

TICK_MS = 1000


def countdown_words(seconds: float, *, paused: bool = False) -> str:
    left = max(0, math.ceil(seconds))
    clock = f"{left // 60}:{left % 60:02d}"
    if paused:
        return f"Paused while you decide ({clock} left)"
    return f"Denies itself in {clock}"


class CountdownLabel(QLabel):
    """Shows how long a question waits before no answer means deny; reads the core's clock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("countdown")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._clock: Countdown | None = None
        self._paused = False
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.refresh)

    def follow(self, clock: Countdown | None) -> None:
        """Count down `clock`, or stop and hide when None."""
        if clock is not self._clock:
            self.resume()  # a clock this card paused must not stay paused once it lets go
            self._clock = clock
        if clock is None:
            self._timer.stop()
            self.hide()
            return
        self.refresh()
        self.show()
        if not self._timer.isActive():
            self._timer.start()

    def pause(self) -> None:
        """Stop the clock while a dialog about this question is open."""
        if self._clock is not None and not self._paused:
            self._paused = True
            self._clock.pause()
            self.refresh()

    def resume(self) -> None:
        if self._clock is not None and self._paused:
            self._paused = False
            self._clock.resume()
            self.refresh()

    def refresh(self) -> None:
        if self._clock is not None:
            self.setText(countdown_words(self._clock.remaining(), paused=self._paused))
