"""Drop-downs and spin boxes on a scrolling page: the wheel scrolls the page, not their value.

Qt gives the wheel to whatever is under the pointer, so scrolling down a form changes every
drop-down that passes under it. A guarded widget takes the wheel only once the user has chosen it
(it has focus: clicked or tabbed to, never focused by the wheel itself); until then the event
goes on to the page around it.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QWidget

W = TypeVar("W", bound=QWidget)


class _WheelGuard(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        if watched.hasFocus():
            return False
        event.ignore()  # ignored and filtered: Qt hands it to the parents, up to the scroll area
        return True


def leave_wheel_to_page(widget: W) -> W:
    """Make `widget` take the wheel only while it has focus; returns it."""
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not WheelFocus: the wheel never picks it
    widget.installEventFilter(_WheelGuard(widget))
    return widget
