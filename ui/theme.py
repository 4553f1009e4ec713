"""Hearth's look: a warm light and dark theme that follow the OS, tinted icons, one stylesheet."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cache
from importlib.resources import files
from string import Template

from PySide6.QtCore import QByteArray, QObject, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

_RESOURCES = files("hearth.resources")
_ICON_COLOUR_PLACEHOLDER = "#000000"
MIN_POINT_SIZE = 10.0


@dataclass(frozen=True)
class Theme:
    """The colours every widget and the transcript delegate draw with (hex strings)."""

    name: str
    window: str
    base: str
    sidebar: str
    card: str
    border: str
    text: str
    muted: str
    accent: str
    accent_hover: str
    on_accent: str
    user_bubble: str
    selection: str
    warning: str
    warning_bg: str
    success: str
    danger: str
    code_bg: str

    def color(self, name: str) -> QColor:
        return QColor(getattr(self, name))


LIGHT = Theme(
    name="light",
    window="#f7f5f2",
    base="#ffffff",
    sidebar="#efebe6",
    card="#fbfaf8",
    border="#ddd6ce",
    text="#1f1b18",
    muted="#6f665e",
    accent="#c2410c",
    accent_hover="#a8380a",
    on_accent="#ffffff",
    user_bubble="#f4e4d8",
    selection="#e6d9cd",
    warning="#9a4a00",
    warning_bg="#fdf1dc",
    success="#1d7a3a",
    danger="#b42318",
    code_bg="#f1ede8",
)

DARK = Theme(
    name="dark",
    window="#1b1917",
    base="#211f1d",
    sidebar="#171513",
    card="#2a2724",
    border="#3b3733",
    text="#ede8e3",
    muted="#a59c93",
    accent="#f0803c",
    accent_hover="#f49a5f",
    on_accent="#1b1410",
    user_bubble="#3a2c23",
    selection="#3d342d",
    warning="#f5b651",
    warning_bg="#3a2e1b",
    success="#6fcf8d",
    danger="#f0776b",
    code_bg="#2d2a27",
)

_current = LIGHT


def current() -> Theme:
    """The theme in use now."""
    return _current


def theme_for(scheme: Qt.ColorScheme) -> Theme:
    return DARK if scheme == Qt.ColorScheme.Dark else LIGHT


def palette_for(theme: Theme) -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: theme.window,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.base,
        QPalette.ColorRole.AlternateBase: theme.card,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.Button: theme.card,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.Highlight: theme.selection,
        QPalette.ColorRole.HighlightedText: theme.text,
        QPalette.ColorRole.ToolTipBase: theme.card,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.Link: theme.accent,
        QPalette.ColorRole.Mid: theme.border,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(theme.muted))
    return palette


def stylesheet(theme: Theme) -> str:
    """The application stylesheet with this theme's colours filled in."""
    source = _RESOURCES.joinpath("styles", "hearth.qss").read_text(encoding="utf-8")
    return Template(source).substitute(asdict(theme))


@cache
def _svg(name: str) -> str:
    return _RESOURCES.joinpath("icons", f"{name}.svg").read_text(encoding="utf-8")


@cache
def icon(name: str, colour: str | None = None, size: int = 20, checked: str | None = None) -> QIcon:
    """A line icon from resources/icons in `colour` (default: the theme's text), muted when off;
    in `checked` when a toggle showing it is on."""
    result = QIcon()
    states = [(QIcon.Mode.Normal, QIcon.State.Off, colour or _current.text)]
    states.append((QIcon.Mode.Disabled, QIcon.State.Off, _current.muted))
    if checked is not None:
        states.append((QIcon.Mode.Normal, QIcon.State.On, checked))
    for mode, state, tint in states:
        renderer = QSvgRenderer(
            QByteArray(_svg(name).replace(_ICON_COLOUR_PLACEHOLDER, tint).encode())
        )
        for scale in (1, 2):
            result.addPixmap(_render(renderer, size, scale), mode, state)
    return result


def _render(renderer: QSvgRenderer, size: int, scale: int) -> QPixmap:
    pixmap = QPixmap(QSize(size * scale, size * scale))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    renderer.render(painter, QRectF(0, 0, size * scale, size * scale))
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    return pixmap


def app_icon() -> QIcon:
    """Hearth's own full-colour icon, for windows and the tray."""
    return QIcon(str(_RESOURCES.joinpath("icons", "hearth.svg")))


class ThemeWatcher(QObject):
    """Applies the theme matching the OS colour scheme, now and whenever the OS switches."""

    theme_did_change = Signal(object)  # the new Theme

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._app = app
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(self._follow)
        self._follow(hints.colorScheme())

    def _follow(self, scheme: Qt.ColorScheme) -> None:
        apply_theme(self._app, theme_for(scheme))
        self.theme_did_change.emit(_current)


def apply_theme(app: QApplication, theme: Theme) -> None:
    """Fusion style, this theme's palette and stylesheet, and a readable base font size."""
    global _current
    _current = theme
    icon.cache_clear()
    app.setStyle("Fusion")
    app.setPalette(palette_for(theme))
    font = app.font()
    if font.pointSizeF() < MIN_POINT_SIZE:
        # Platforms without a desktop theme (offscreen, bare X servers) default to 9 pt.
        font.setPointSizeF(MIN_POINT_SIZE)
        app.setFont(font)
    app.setStyleSheet(stylesheet(theme))
