"""A consent card's day strip: where a calendar change moves an event, and what is already there.

One column per date the slots fall on (an event moved from Thursday to Friday shows both days),
over the hours the slots need plus an hour either side. The old time is a dashed ghost with its
label struck out, the new time a solid accent block, other events muted blocks. Everything is
measured in `paintEvent` from the few slots it holds; nothing here waits or reads anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from hearth import TimeSlot
from hearth.ui import theme

VIEW_HEIGHT = 176
MIN_HOURS = 4  # a short meeting still sits in a few hours of its day
COLUMN_MAX_WIDTH = 300  # one column across a wide card reads as a bar, not a day
COLUMN_GAP = 10
HOUR_STEPS = (1, 2, 3, 4, 6)
_KIND_ORDER = {"busy": 0, "before": 1, "after": 2}  # the change is drawn over what is there


def day_words(day: date) -> str:
    """A date as a column header reads it: "Thu 3 Dec"."""
    return f"{day:%a} {day.day} {day:%b}"


def span_words(slot: TimeSlot) -> str:
    """ "10:00–11:00"; an end on a later day names it, and midnight reads 24:00."""
    end = slot.end
    if end.date() == slot.start.date():
        return f"{slot.start:%H:%M}–{end:%H:%M}"
    if end.time() == time(0) and (end.date() - slot.start.date()).days == 1:
        return f"{slot.start:%H:%M}–24:00"
    return f"{slot.start:%H:%M}–{day_words(end.date())} {end:%H:%M}"


def describe(slots: Sequence[TimeSlot]) -> str:
    """The slots in one sentence, for screen readers and the tooltip."""
    before = next((slot for slot in slots if slot.kind == "before"), None)
    after = next((slot for slot in slots if slot.kind == "after"), None)
    parts = []
    if before is not None and after is not None:
        old, new = _when(before), _when(after)
        renamed = f", renamed {after.label}" if after.label != before.label else ""
        moves = f"stays at {old}" if old == new else f"moves from {old} to {new}"
        parts.append(f"{before.label} {moves}{renamed}")
    elif after is not None:
        parts.append(f"New: {after.label}, {_when(after)}")
    elif before is not None:
        parts.append(f"{before.label} is removed from {_when(before)}")
    busy = [slot for slot in slots if slot.kind == "busy"]
    if busy:
        shown_day = after.start.date() if after is not None else None
        said = [f"{slot.label} {_when(slot, shown_day)}" for slot in busy]
        parts.append("busy: " + ", ".join(said))
    return "; ".join(parts)


def _when(slot: TimeSlot, known_day: date | None = None) -> str:
    day = slot.start.date()
    return span_words(slot) if day == known_day else f"{day_words(day)} {span_words(slot)}"


def _hours_of(slot: TimeSlot) -> tuple[float, float]:
    """Start and end as hours since the start day's midnight, the end cut at midnight."""
    midnight = datetime.combine(slot.start.date(), time(0), slot.start.tzinfo)
    first = (slot.start - midnight).total_seconds() / 3600
    last = (slot.end - midnight).total_seconds() / 3600
    return first, min(max(last, first), 24.0)


def hour_range(slots: Sequence[TimeSlot]) -> tuple[int, int]:
    """Whole hours from an hour before the earliest slot to an hour after the latest."""
    if not slots:
        return 9, 9 + MIN_HOURS
    spans = [_hours_of(slot) for slot in slots]
    first = max(0, math.floor(min(start for start, _ in spans)) - 1)
    last = min(24, math.ceil(max(end for _, end in spans)) + 1)
    if last - first < MIN_HOURS:
        grow = MIN_HOURS - (last - first)
        first = max(0, first - grow // 2)
        last = min(24, first + MIN_HOURS)
        first = last - MIN_HOURS
    return first, last


@dataclass(frozen=True, slots=True)
class Block:
    """One slot placed in its column: hours shown (stretched to fit a line of text), its lane."""

    slot: TimeSlot
    column: int
    top: float  # hours since midnight
    bottom: float
    lane: int = 0
    lanes: int = 1


def place(slots: Sequence[TimeSlot], days: Sequence[date], line_hours: float) -> list[Block]:
    """Put each slot in its day's column; blocks that overlap on screen sit side by side."""
    placed: list[Block] = []
    for column, day in enumerate(days):
        mine = sorted(
            (slot for slot in slots if slot.start.date() == day),
            key=lambda slot: (slot.start, _KIND_ORDER[slot.kind]),
        )
        cluster: list[tuple[TimeSlot, float, float, int]] = []
        lane_ends: list[float] = []
        for slot in mine:
            top, bottom = _hours_of(slot)
            bottom = max(bottom, top + line_hours)
            if cluster and top >= max(lane_ends):  # nothing above reaches here: start afresh
                placed += _blocks(cluster, column, len(lane_ends))
                cluster, lane_ends = [], []
            lane = next((i for i, end in enumerate(lane_ends) if end <= top), len(lane_ends))
            if lane == len(lane_ends):
                lane_ends.append(bottom)
            lane_ends[lane] = bottom
            cluster.append((slot, top, bottom, lane))
        placed += _blocks(cluster, column, len(lane_ends))
    return placed


def _blocks(
    cluster: list[tuple[TimeSlot, float, float, int]], column: int, lanes: int
) -> list[Block]:
    """Blocks that overlap one another share their column's width between `lanes`."""
    return [Block(slot, column, top, bottom, lane, lanes) for slot, top, bottom, lane in cluster]


class DayView(QWidget):
    """Draws `TimeSlot`s on a small strip of one or two days; fixed height, no scrolling."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dayView")
        self.setFixedHeight(VIEW_HEIGHT)
        self.setMinimumWidth(220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Day view")
        self.slots: tuple[TimeSlot, ...] = ()
        self.days: list[date] = []

    def show_slots(self, slots: Sequence[TimeSlot]) -> None:
        """Draw these slots from now on; the same slots again change nothing."""
        if tuple(slots) == self.slots:
            return
        self.slots = tuple(slots)
        self.days = sorted({slot.start.date() for slot in self.slots})
        summary = describe(self.slots)
        self.setAccessibleDescription(summary)
        self.setToolTip(summary)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.days:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        try:
            _Painting(self, painter).draw()
        finally:
            painter.end()


class _Painting:
    """One paint of a `DayView`: its geometry, worked out once, then the layers drawn in order."""

    def __init__(self, view: DayView, painter: QPainter) -> None:
        self.view, self.painter, self.colours = view, painter, theme.current()
        self.header_font = QFont(view.font())
        self.header_font.setWeight(QFont.Weight.DemiBold)
        self.small_font = QFont(view.font())
        small = max(theme.MIN_POINT_SIZE - 1, view.font().pointSizeF() * 0.88)
        self.small_font.setPointSizeF(small)
        self.small = QFontMetrics(self.small_font)
        self.gutter = self.small.horizontalAdvance("00:00") + 8
        self.first, self.last = hour_range(view.slots)
        self.top = float(QFontMetrics(self.header_font).height() + 6)  # the date headers
        self.hour_px = (view.height() - 1 - self.top) / (self.last - self.first)
        columns = len(view.days)
        room = view.width() - 1 - self.gutter - COLUMN_GAP * (columns - 1)
        self.column_width = min(COLUMN_MAX_WIDTH, room / columns)

    def column_rect(self, column: int) -> QRectF:
        left = self.gutter + column * (self.column_width + COLUMN_GAP)
        return QRectF(left, self.top, self.column_width, self.view.height() - 1 - self.top)

    def y(self, hours: float) -> float:
        return self.top + (min(max(hours, self.first), self.last) - self.first) * self.hour_px

    def draw(self) -> None:
        self.draw_grid()
        line_hours = (self.small.height() + 4) / self.hour_px
        for block in sorted(place(self.view.slots, self.view.days, line_hours), key=_drawn_order):
            self.draw_block(block)

    def draw_grid(self) -> None:
        painter, colours = self.painter, self.colours
        for column, day in enumerate(self.view.days):
            rect = self.column_rect(column)
            painter.setFont(self.header_font)
            painter.setPen(colours.color("text"))
            header = QRectF(rect.left() + 2, 0, rect.width() - 2, self.top - 4)
            painter.drawText(
                header, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, day_words(day)
            )
            painter.setPen(QPen(colours.color("border"), 1))
            painter.setBrush(colours.color("base"))
            painter.drawRoundedRect(rect, 4, 4)
        step = next((s for s in HOUR_STEPS if s * self.hour_px >= self.small.height() + 2), 6)
        painter.setFont(self.small_font)
        for hour in range(self.first + 1, self.last):
            y = self.y(hour)
            painter.setPen(QPen(colours.color("border"), 1))
            for column in range(len(self.view.days)):
                rect = self.column_rect(column)
                painter.drawLine(int(rect.left()) + 1, int(y), int(rect.right()) - 1, int(y))
            if hour % step == 0:
                painter.setPen(colours.color("muted"))
                label = QRectF(0, y - self.small.height() / 2, self.gutter - 6, self.small.height())
                painter.drawText(
                    label,
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    f"{hour:02d}:00",
                )

    def draw_block(self, block: Block) -> None:
        column = self.column_rect(block.column)
        lane_width = (column.width() - 6) / block.lanes
        rect = QRectF(
            column.left() + 3 + block.lane * lane_width,
            self.y(block.top) + 1,
            lane_width - 2,
            max(self.y(block.bottom) - self.y(block.top) - 2, 4.0),
        )
        text_colour = self._paint_shape(block.slot.kind, rect)
        self._paint_text(block.slot, rect.adjusted(6, 1, -4, -1), text_colour)

    def _paint_shape(self, kind: str, rect: QRectF) -> QColor:
        """Fill or outline one block as its kind looks; returns the colour its text takes."""
        painter, colours = self.painter, self.colours
        if kind == "after":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colours.color("accent"))
            painter.drawRoundedRect(rect, 4, 4)
            return colours.color("on_accent")
        if kind == "before":
            pen = QPen(colours.color("muted"), 1.4, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(colours.color("card"))
            painter.drawRoundedRect(rect.adjusted(0.7, 0.7, -0.7, -0.7), 4, 4)
            return colours.color("muted")
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colours.color("selection"))
        painter.drawRoundedRect(rect, 4, 4)
        return colours.color("text")

    def _paint_text(self, slot: TimeSlot, rect: QRectF, colour: QColor) -> None:
        """Label and time on two lines where there is room, else one elided line."""
        painter, metrics = self.painter, self.small
        font = QFont(self.small_font)
        font.setStrikeOut(slot.kind == "before")
        painter.setFont(font)
        painter.setPen(colour)
        width = int(rect.width())
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        span = span_words(slot)
        if rect.height() >= 2 * metrics.height():
            label = metrics.elidedText(slot.label, Qt.TextElideMode.ElideRight, width)
            painter.drawText(rect, flags, label)
            below = rect.adjusted(0, metrics.height(), 0, 0)
            font.setStrikeOut(False)
            painter.setFont(font)
            painter.drawText(
                below, flags, metrics.elidedText(span, Qt.TextElideMode.ElideRight, width)
            )
            return
        line = metrics.elidedText(f"{slot.label}  {span}", Qt.TextElideMode.ElideRight, width)
        painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)


def _drawn_order(block: Block) -> int:
    return _KIND_ORDER[block.slot.kind]
