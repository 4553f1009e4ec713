"""The look shared by every page: a header, tables set up alike, status colours, banners."""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QEvent, QObject, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from hearth.ui.pages.table_columns import ColumnFitter, RowDelegate
from hearth.ui.pages.table_columns import fit_columns as fit_columns  # pages import it from here

Tone = Literal["good", "warn", "bad", "info"]

# (on a light window, on a dark window): each reads at 4.5:1 or better on its background.
_TONES: dict[Tone, tuple[str, str]] = {
    "good": ("#1b6e2e", "#7fd48f"),
    "warn": ("#8a4b00", "#f2b766"),
    "bad": ("#b3261e", "#ff8a80"),
    "info": ("#1d4f91", "#8ab4f8"),
}
PAGE_MARGIN = 18


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def tone_color(palette: QPalette, tone: Tone) -> QColor:
    """A status colour that stays readable on the current (light or dark) palette."""
    light, dark = _TONES[tone]
    return QColor(dark if is_dark(palette) else light)


def muted_color(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText)


def page_layout(page: QWidget, title: str, blurb: str) -> QVBoxLayout:
    """The page's main layout, already holding its title and one-line explanation."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(PAGE_MARGIN, PAGE_MARGIN, PAGE_MARGIN, PAGE_MARGIN)
    layout.setSpacing(10)
    heading = QLabel(title)
    font = heading.font()
    font.setPointSizeF(font.pointSizeF() * 1.6)
    font.setWeight(font.Weight.DemiBold)
    heading.setFont(font)
    heading.setAccessibleName(title)
    layout.addWidget(heading)
    layout.addWidget(explanation(blurb))
    return layout


def explanation(text: str) -> QLabel:
    """Wrapped, secondary text under a heading."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setProperty(_MUTED, True)
    _follow_theme(label)
    return label


def section_heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.15)
    font.setWeight(font.Weight.DemiBold)
    label.setFont(font)
    label.setContentsMargins(0, 8, 0, 0)
    return label


def set_tone(label: QLabel, tone: Tone | None) -> None:
    """Colour a status label; None goes back to the normal text colour."""
    label.setProperty(_TONE, tone)
    _follow_theme(label)


_MUTED, _TONE, _FOLLOWER = "hearthMuted", "hearthTone", "hearthThemeFollower"


def _follow_theme(label: QLabel) -> None:
    """Colour `label` for the current theme now, and again whenever the theme changes."""
    if label.property(_FOLLOWER) is None:
        follower = _ThemeFollower(label)
        label.installEventFilter(follower)
        label.setProperty(_FOLLOWER, True)
    _colour(label)


def _colour(label: QLabel) -> None:
    palette = QApplication.palette()
    if label.property(_MUTED):
        own = label.palette()
        muted = muted_color(palette)
        if own.color(QPalette.ColorRole.WindowText) != muted:
            own.setColor(QPalette.ColorRole.WindowText, muted)
            label.setPalette(own)
    tone = label.property(_TONE)
    style = f"color: {tone_color(palette, tone).name()};" if tone else ""
    if label.styleSheet() != style:  # setting the same style again would loop
        label.setStyleSheet(style)


_THEME_EVENTS = (
    QEvent.Type.ApplicationPaletteChange,
    QEvent.Type.PaletteChange,
    QEvent.Type.StyleChange,
)


class _ThemeFollower(QObject):
    """Re-colours a muted or toned label when the application's palette (the theme) changes."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _THEME_EVENTS and isinstance(watched, QLabel):
            _colour(watched)
        return False


def configure_table(view: QTableView, *, stretch_column: int) -> None:
    """Row selection, no grid, sortable; `stretch_column` takes the width that is left.

    The other columns fit their contents whenever the model is reset or the table's width
    changes, up to a cap, so one long value cannot push the rest out of sight; the user can
    still widen them (see `table_columns`).
    """
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setAlternatingRowColors(True)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.setSortingEnabled(True)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 12)
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(stretch_column, QHeaderView.ResizeMode.Stretch)
    header.setStretchLastSection(False)
    view.setStyleSheet(_table_style(view.palette()))
    view.installEventFilter(_TableRestyler(view))
    view.setItemDelegate(RowDelegate(view))
    view.model().modelReset.connect(lambda: fit_columns(view, stretch_column))
    ColumnFitter(view, stretch_column)  # a narrower window gives the columns less room
    fit_columns(view, stretch_column)


class _TableRestyler(QObject):
    """Re-colours a table's header and cells when the theme (the application palette) changes."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(watched, QTableView) and event.type() == QEvent.Type.PaletteChange:
            style = _table_style(watched.palette())
            if watched.styleSheet() != style:  # setting the same style again would loop
                watched.setStyleSheet(style)
                model = watched.model()
                if isinstance(model, QSortFilterProxyModel):
                    model = model.sourceModel()
                if hasattr(model, "set_palette"):
                    model.set_palette(watched.palette())
        return False


def _table_style(palette: QPalette) -> str:
    """Roomy cells and a flat header; colours come from the palette so dark themes work."""
    line = palette.color(QPalette.ColorRole.Mid).name()
    header = palette.color(QPalette.ColorRole.Window).name()
    text = palette.color(QPalette.ColorRole.WindowText).name()
    return (
        f"QTableView {{ border: 1px solid {line}; }}"
        " QTableView::item { padding: 0px 10px; border: none; }"
        f" QHeaderView::section {{ background: {header}; color: {text}; padding: 6px 10px 6px 13px;"
        f" border: none; border-bottom: 1px solid {line}; font-weight: 600; }}"
    )


class Banner(QFrame):
    """A tinted box drawing attention to one situation, e.g. "no model is installed yet"."""

    def __init__(self, text: str, tone: Tone = "info", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.label = QLabel(text)
        self.label.setWordWrap(True)
        self.action_row = QHBoxLayout()
        self.action_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.addWidget(self.label)
        layout.addLayout(self.action_row)
        self._tone = tone
        self._apply_tone()

    def add_action(self, button: QWidget) -> None:
        self.action_row.addWidget(button)

    def _apply_tone(self) -> None:
        accent = tone_color(self.palette(), self._tone)
        base = self.palette().color(QPalette.ColorRole.Base)
        tint = QColor(accent)
        tint.setAlpha(28 if not is_dark(self.palette()) else 48)
        self.setStyleSheet(
            f"QFrame#banner {{ background: {_blend(base, tint).name()};"
            f" border: 1px solid {accent.name()}; border-radius: 6px; }}"
        )


def _blend(base: QColor, tint: QColor) -> QColor:
    alpha = tint.alphaF()
    return QColor.fromRgbF(
        base.redF() * (1 - alpha) + tint.redF() * alpha,
        base.greenF() * (1 - alpha) + tint.greenF() * alpha,
        base.blueF() * (1 - alpha) + tint.blueF() * alpha,
    )
