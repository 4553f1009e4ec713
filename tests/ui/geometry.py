"""Geometry checks for narrow windows: what sticks out of its parent, what text is cut short."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QWidget


def describe(widget: QWidget) -> str:
    """A widget as a failure message names it: class, object name, text and parent."""
    text = widget.text() if isinstance(widget, QLabel) else ""
    parent = widget.parentWidget()
    owner = f" in {type(parent).__name__}#{parent.objectName()}" if parent is not None else ""
    return f"{type(widget).__name__}#{widget.objectName()} {text[:40]!r}{owner}"


def shown_widgets(root: QWidget) -> list[QWidget]:
    """Every widget under `root` that is on screen, popups and tooltips left out."""
    return [w for w in root.findChildren(QWidget) if w.isVisible() and not w.isWindow()]


def past_right_edge(root: QWidget) -> list[str]:
    """Widgets whose right edge passes their parent's (a scroll area's content is measured
    against the scroll area, since the viewport may be as wide as the content)."""
    found = []
    for widget in shown_widgets(root):
        parent = widget.parentWidget()
        if parent is None:
            continue
        edge = parent.width()
        scroller = parent.parentWidget()
        if isinstance(scroller, QAbstractScrollArea) and parent is scroller.viewport():
            edge = scroller.viewport().width()
        if widget.geometry().right() >= edge:
            found.append(f"{describe(widget)}: right {widget.geometry().right()} >= {edge}")
    return found


def cut_labels(root: QWidget) -> list[str]:
    """Labels narrower than their text: a wrapped one shorter than its heightForWidth, a
    one-line one narrower than its minimum size (an eliding label says so with "…")."""
    found = []
    for label in shown_widgets(root):
        if not isinstance(label, QLabel) or not label.text():
            continue
        if label.wordWrap():
            needed = label.heightForWidth(label.width())
            if label.height() < needed:
                found.append(f"{describe(label)}: height {label.height()} < {needed}")
        elif label.width() < label.minimumSizeHint().width():
            found.append(f"{describe(label)}: width {label.width()} < {label.minimumSizeHint()}")
    return found


def in_window(widget: QWidget) -> QRect:
    """The widget's rectangle in its window's coordinates."""
    return QRect(widget.mapTo(widget.window(), widget.rect().topLeft()), widget.size())
