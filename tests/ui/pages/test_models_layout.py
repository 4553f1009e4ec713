"""The Models page's layout: one page that scrolls as a whole, nothing clipped inside it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from hearth.ui.context import UiContext
from hearth.ui.pages.models import ModelsPage
from hearth.ui.theme import DARK, LIGHT, Theme, apply_theme
from tests.ui.conftest import save_screenshot


@pytest.fixture
def page(qtbot: QtBot, context: UiContext) -> ModelsPage:
    widget = ModelsPage(context)
    qtbot.addWidget(widget)
    with qtbot.waitSignals([widget.inventory_did_load, widget.speech.models_did_load]):
        widget.resize(1000, 620)
        widget.show()
    qtbot.waitUntil(widget.speech.language.isEnabled)
    return widget


def clipping_ancestor(widget: QWidget, top: QWidget) -> QWidget | None:
    """The first widget between `widget` and `top` that cuts part of `widget` off, if any."""
    rect = QRect(widget.rect())
    child = widget
    while child is not top:
        parent = child.parentWidget()
        assert parent is not None, "`top` is not an ancestor"
        rect.translate(child.pos())
        if not parent.rect().contains(rect):
            return parent
        child = parent
    return None


def page_scroll(page: ModelsPage) -> QScrollArea | None:
    """The scroll area holding the whole page (its table among the rest), if it has one."""
    return next((a for a in page.findChildren(QScrollArea) if a.isAncestorOf(page.table)), None)


def scrolling_areas(page: ModelsPage, outer: QScrollArea | None) -> list[QAbstractScrollArea]:
    """The scroll areas inside the page's own (its table too) whose scroll bar is showing."""
    return [
        area
        for area in page.findChildren(QAbstractScrollArea)
        if area is not outer
        and (area.verticalScrollBar().isVisible() or area.horizontalScrollBar().isVisible())
    ]


@pytest.mark.parametrize("height", [620, 900])
def test_voice_input_is_part_of_the_page_and_its_checkbox_is_whole(
    qtbot: QtBot, page: ModelsPage, height: int
) -> None:
    page.resize(1000, height)
    qtbot.wait(50)  # the resize's layout pass
    checkbox = page.speech.send_at_once
    outer = page_scroll(page)
    assert checkbox.isVisible()
    assert clipping_ancestor(checkbox, outer.widget() if outer else page) is None
    assert [area for area in page.findChildren(QScrollArea) if area is not outer] == []
    assert page.model.rowCount() <= 12  # the table shows up to a dozen rows without scrolling
    assert scrolling_areas(page, outer) == []
    if outer is None:
        return  # nothing scrolls, and nothing cut the checkbox off
    # The page scrolls as one: scrolled to the end, the whole checkbox is in view.
    bar = outer.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.wait(50)
    viewport = outer.viewport()
    top_left = checkbox.mapTo(viewport, checkbox.rect().topLeft())
    assert viewport.rect().contains(QRect(top_left, checkbox.size()))


@pytest.mark.parametrize(("theme", "name"), [(LIGHT, "light"), (DARK, "dark")])
def test_screenshots_of_the_whole_page(
    qapp: QApplication, page: ModelsPage, theme: Theme, name: str
) -> None:
    apply_theme(qapp, theme)
    try:
        save_screenshot(page, f"models-page-top-{name}")
        outer = page_scroll(page)
        assert outer is not None
        outer.verticalScrollBar().setValue(outer.verticalScrollBar().maximum())
        save_screenshot(page, f"models-page-bottom-{name}")
    finally:
        apply_theme(qapp, LIGHT)
