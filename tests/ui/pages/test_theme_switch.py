"""Following the OS theme at runtime: pages opened earlier re-style with the rest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QApplication, QHeaderView, QLabel, QTableView
from pytestqt.qtbot import QtBot

from hearth.ui import theme
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.pages.chrome import muted_color, set_tone, tone_color
from tests.ui.conftest import save_screenshot


@pytest.fixture
def watcher(qapp: QApplication) -> Iterator[theme.ThemeWatcher]:
    follower = theme.ThemeWatcher(qapp)
    yield follower
    follower.deleteLater()
    theme.apply_theme(qapp, theme.LIGHT)


@pytest.fixture
def window(qtbot: QtBot, context: UiContext) -> Iterator[MainWindow]:
    main = MainWindow(context)
    qtbot.addWidget(main)
    main.resize(1100, 720)
    main.show()
    qtbot.waitExposed(main)
    for page in main.page_classes:  # every page opened once, in the light theme
        main.open_page(page.title)
    yield main
    main.close()


def os_switches_to(scheme: Qt.ColorScheme) -> None:
    """What the OS does: the style hints announce the new colour scheme."""
    QGuiApplication.styleHints().colorSchemeChanged.emit(scheme)
    QApplication.processEvents()


def header_colours(header: QHeaderView) -> tuple[QColor, QColor]:
    """The header's painted background, and the text colour its stylesheet gives it."""
    image = header.grab().toImage()
    background = image.pixelColor(QPoint(image.width() - 4, image.height() // 2))
    return background, header.palette().color(header.foregroundRole())


def tables(window: MainWindow) -> list[QTableView]:
    return [view for page in window.pages.values() for view in page.findChildren(QTableView)]


def test_pages_opened_earlier_follow_a_runtime_theme_switch(
    qtbot: QtBot, window: MainWindow, watcher: theme.ThemeWatcher
) -> None:
    assert tables(window), "no page with a table was opened"
    os_switches_to(Qt.ColorScheme.Dark)
    window.open_page("Models")
    for view in tables(window):
        background, _text = header_colours(view.horizontalHeader())
        assert background == theme.DARK.color("window"), view.parent()
    save_screenshot(window, "theme-runtime-light-to-dark")
    os_switches_to(Qt.ColorScheme.Light)
    for view in tables(window):
        background, text = header_colours(view.horizontalHeader())
        assert background == theme.LIGHT.color("window"), view.parent()
        assert text == theme.LIGHT.color("text"), view.parent()
    save_screenshot(window, "theme-runtime-dark-to-light")


def test_explanations_and_status_colours_follow_the_theme_too(
    qtbot: QtBot, window: MainWindow, watcher: theme.ThemeWatcher
) -> None:
    models = window.pages["Models"]
    blurb = next(label for label in models.findChildren(QLabel) if label.property("hearthMuted"))
    status = models.status
    set_tone(status, "good")
    light_blurb = blurb.palette().color(blurb.foregroundRole())
    light_status = status.styleSheet()
    os_switches_to(Qt.ColorScheme.Dark)
    assert blurb.palette().color(blurb.foregroundRole()) == muted_color(QApplication.palette())
    assert blurb.palette().color(blurb.foregroundRole()) != light_blurb
    assert status.styleSheet() != light_status
    assert tone_color(QApplication.palette(), "good").name() in status.styleSheet()
    os_switches_to(Qt.ColorScheme.Light)
    assert blurb.palette().color(blurb.foregroundRole()) == light_blurb
    assert status.styleSheet() == light_status
