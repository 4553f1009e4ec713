"""How the transcript's text rows look: user bubbles, Markdown answers, thinking, notices.

Everything sits in a centred reading column, as in most chat apps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QTextDocument
from PySide6.QtWidgets import QWidget

from hearth import shown, shown_reply
from hearth.ui import theme
from hearth.ui.chat.documents import TextLayouts, draw_document
from hearth.ui.chat.entries import (
    AnswerEntry,
    NoticeEntry,
    ReadingEntry,
    ReasoningEntry,
    UserEntry,
)

TextEntry = UserEntry | AnswerEntry | ReasoningEntry | ReadingEntry | NoticeEntry
MAX_COLUMN = 760
SIDE = 28
BUBBLE_SHARE = 0.78
BUBBLE_PAD = (14, 9)
GAP = 6
TURN_GAP = 18
_TONES = {"info": "muted", "warning": "warning", "error": "danger"}
READING_BAR = (160, 3)  # the reading row's progress bar: width and height


@dataclass(frozen=True)
class Column:
    """The centred reading column inside a row of the given width."""

    left: int
    width: int

    @classmethod
    def of(cls, row_width: int) -> Column:
        width = max(120, min(MAX_COLUMN, row_width - 2 * SIDE))
        return cls(max(0, (row_width - width) // 2), width)


class TextRows:
    """Sizes and draws the rows that are only text; layouts are cached per row version."""

    def __init__(self, view: QWidget) -> None:
        self._view = view
        self._layouts = TextLayouts()

    def forget(self, keep: set[int]) -> None:
        self._layouts.forget(keep)

    def header_height(self) -> int:
        return self._view.fontMetrics().height() + 10

    def height(self, entry: TextEntry, column: Column) -> int:
        if isinstance(entry, UserEntry):
            return TURN_GAP + self._bubble(entry, column)[1] + GAP
        if isinstance(entry, AnswerEntry):
            return math.ceil(self.answer_document(entry, column).size().height()) + 2 * GAP
        if isinstance(entry, ReasoningEntry):
            if not entry.text.strip() and entry.tools:  # no thinking: the tools' line alone
                return math.ceil(self._tools(entry, column).size().height()) + 2 * GAP
            height = self.header_height() + GAP
            if _tools_shown(entry):
                height += math.ceil(self._tools(entry, column).size().height()) + GAP // 2
            if not entry.collapsed and entry.text.strip():
                height += math.ceil(self._thinking(entry, column).size().height()) + GAP
            return height
        if isinstance(entry, ReadingEntry):
            return self.header_height() + READING_BAR[1] + 2 * GAP
        return math.ceil(self._notice(entry, column).size().height()) + 3 * GAP

    def paint(self, painter: QPainter, entry: TextEntry, rect: QRect, column: Column) -> None:
        if isinstance(entry, UserEntry):
            self._paint_user(painter, entry, rect, column)
        elif isinstance(entry, AnswerEntry):
            text = theme.current().color("text")
            left = rect.left() + column.left
            draw_document(
                painter, self.answer_document(entry, column), left, rect.top() + GAP, text
            )
        elif isinstance(entry, ReasoningEntry):
            self._paint_thinking(painter, entry, rect, column)
        elif isinstance(entry, ReadingEntry):
            self._paint_reading(painter, entry, rect, column)
        else:
            self._paint_notice(painter, entry, rect, column)

    # Fonts and laid-out text.

    def _font(self, scale: float = 1.0, *, bold: bool = False) -> QFont:
        font = QFont(self._view.font())
        font.setPointSizeF(font.pointSizeF() * scale)
        font.setBold(bold)
        return font

    def _user_text(self, entry: UserEntry, column: Column) -> QTextDocument:
        width = int(column.width * BUBBLE_SHARE) - 2 * BUBBLE_PAD[0]
        return self._layouts.plain(entry, "text", entry.text, self._font(), width)

    def _bubble(self, entry: UserEntry, column: Column) -> tuple[int, int]:
        document = self._user_text(entry, column)
        width = math.ceil(document.idealWidth()) + 2 * BUBBLE_PAD[0]
        return width, math.ceil(document.size().height()) + 2 * BUBBLE_PAD[1]

    def answer_document(self, entry: AnswerEntry, column: Column) -> QTextDocument:
        # The model may copy what it read (a bidi control, an invisible character) into a reply.
        text = shown(shown_reply(entry.text), lines=True).strip()
        return self._layouts.markdown(entry, "text", text, self._font(), column.width)

    def _thinking(self, entry: ReasoningEntry, column: Column) -> QTextDocument:
        text = shown(shown_reply(entry.text), lines=True).strip()
        return self._layouts.plain(entry, "text", text, self._font(0.95), column.width - 16)

    def _tools(self, entry: ReasoningEntry, column: Column) -> QTextDocument:
        # Escaped where it was worded (`offered_line`): connector names come from plugins.
        return self._layouts.plain(entry, "tools", entry.tools, self._font(0.9), column.width - 18)

    def _notice(self, entry: NoticeEntry, column: Column) -> QTextDocument:
        text = shown(entry.text, lines=True)  # errors quote servers, folders, calendars
        return self._layouts.plain(entry, "text", text, self._font(0.92), column.width - 40)

    # Painting.

    def _paint_user(self, painter: QPainter, entry: UserEntry, rect: QRect, column: Column) -> None:
        colours = theme.current()
        width, height = self._bubble(entry, column)
        left = rect.left() + column.left + column.width - width
        bubble = QRectF(left, rect.top() + TURN_GAP, width, height)
        path = QPainterPath()
        path.addRoundedRect(bubble, 14, 14)
        painter.fillPath(path, colours.color("user_bubble"))
        text_left, text_top = bubble.left() + BUBBLE_PAD[0], bubble.top() + BUBBLE_PAD[1]
        document = self._user_text(entry, column)
        draw_document(painter, document, text_left, text_top, colours.color("text"))

    def _paint_thinking(
        self, painter: QPainter, entry: ReasoningEntry, rect: QRect, column: Column
    ) -> None:
        colours = theme.current()
        muted = colours.color("muted")
        left = rect.left() + column.left
        if not entry.text.strip() and entry.tools:  # no thinking: the tools' line alone
            draw_document(painter, self._tools(entry, column), left + 16, rect.top() + GAP, muted)
            return
        header = QRectF(left, rect.top() + GAP // 2, column.width, self.header_height())
        _paint_chevron(painter, QPointF(header.left() + 6, header.center().y()), entry, muted)
        painter.setPen(muted)
        painter.setFont(self._font(0.95, bold=entry.live))
        title_area = header.adjusted(18, 0, 0, 0)
        painter.drawText(title_area, Qt.AlignmentFlag.AlignVCenter, thinking_title(entry))
        top = bottom = header.bottom() + 2
        if _tools_shown(entry):
            tools = self._tools(entry, column)
            draw_document(painter, tools, header.left() + 16, top, muted)
            bottom = top + tools.size().height()
        if not entry.collapsed and entry.text.strip():
            if bottom > top:
                bottom += GAP // 2
            document = self._thinking(entry, column)
            draw_document(painter, document, header.left() + 16, bottom, muted)
            bottom += document.size().height()
        if bottom > top and not entry.collapsed:
            painter.setPen(QPen(colours.color("border"), 2))
            painter.drawLine(QPointF(header.left() + 6, top), QPointF(header.left() + 6, bottom))

    def _paint_reading(
        self, painter: QPainter, entry: ReadingEntry, rect: QRect, column: Column
    ) -> None:
        colours = theme.current()
        left = rect.left() + column.left + 16  # in line with the offered tools' line
        line = QRectF(left, rect.top() + GAP // 2, column.width - 16, self.header_height())
        painter.setPen(colours.color("muted"))
        painter.setFont(self._font(0.95))
        painter.drawText(line, Qt.AlignmentFlag.AlignVCenter, entry.copy_text)
        width, height = READING_BAR
        track = QRectF(left, line.bottom() + GAP // 2, width, height)
        painter.fillRect(track, colours.color("border"))
        filled = QRectF(track.left(), track.top(), round(width * entry.fraction), height)
        painter.fillRect(filled, colours.color("accent"))

    def _paint_notice(
        self, painter: QPainter, entry: NoticeEntry, rect: QRect, column: Column
    ) -> None:
        colours = theme.current()
        document = self._notice(entry, column)
        width = math.ceil(document.idealWidth())
        left = rect.left() + column.left + (column.width - width) / 2
        top = rect.top() + 1.5 * GAP
        if entry.tone != "info":
            pill = QRectF(left - 12, top - 5, width + 24, document.size().height() + 10)
            path = QPainterPath()
            path.addRoundedRect(pill, 10, 10)
            painter.fillPath(path, colours.color("warning_bg"))
        draw_document(painter, document, left, top, colours.color(_TONES[entry.tone]))


def _paint_chevron(
    painter: QPainter, centre: QPointF, entry: ReasoningEntry, colour: QColor
) -> None:
    """▸ when folded, ▾ when open, drawn so it is crisp at any scale."""
    if entry.collapsed:
        points = [QPointF(-2, -4), QPointF(3, 0), QPointF(-2, 4)]
    else:
        points = [QPointF(-4, -2), QPointF(0, 3), QPointF(4, -2)]
    path = QPainterPath(centre + points[0])
    for point in points[1:]:
        path.lineTo(centre + point)
    pen = QPen(colour, 1.6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.drawPath(path)


def _tools_shown(entry: ReasoningEntry) -> bool:
    """Under a Thoughts header, the offered tools show while it is open, and also when folded
    if some connectors were left out (the user needs to know then)."""
    return bool(entry.tools) and (not entry.collapsed or entry.tools_left_out)


def thinking_title(entry: ReasoningEntry) -> str:
    if entry.live:
        return "Thinking…"
    words = len(entry.text.split())
    return f"Thoughts · {words} word{'s' if words != 1 else ''}"
