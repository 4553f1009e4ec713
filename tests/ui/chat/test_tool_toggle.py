"""The "use a tool" toggle (Ctrl+T) reads on or off at a glance, in both themes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from hearth.ui import theme
from hearth.ui.chat.composer import Composer
from tests.ui.conftest import save_screenshot

# A toggle that changes less than this, summed over red, green and blue, looks unchanged.
CLEARLY_DIFFERENT = 40


@pytest.fixture(params=[theme.LIGHT, theme.DARK], ids=lambda t: t.name)
def composer(
    request: pytest.FixtureRequest, qtbot: QtBot, qapp: QApplication
) -> Iterator[Composer]:
    theme.apply_theme(qapp, request.param)
    widget = Composer()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    theme.apply_theme(qapp, theme.LIGHT)


def average(image: QImage) -> QColor:
    """The mean colour of the button's inside, where its background shows."""
    inset = 6
    red = green = blue = count = 0
    for y in range(inset, image.height() - inset):
        for x in range(inset, image.width() - inset):
            colour = image.pixelColor(x, y)
            red, green, blue, count = (
                red + colour.red(),
                green + colour.green(),
                blue + colour.blue(),
                count + 1,
            )
    return QColor(red // count, green // count, blue // count)


def distance(one: QColor, other: QColor) -> int:
    return sum(abs(a - b) for a, b in zip(one.getRgb()[:3], other.getRgb()[:3], strict=True))


def as_seen(composer: Composer) -> QColor:
    """The toggle as drawn over the composer (a flat button's own grab has no background)."""
    toggle = composer.use_tool
    QApplication.processEvents()
    where = QRect(toggle.mapTo(composer, QPoint(0, 0)), toggle.size())
    return average(composer.grab(where).toImage())


def test_the_tool_toggle_looks_different_when_on(composer: Composer) -> None:
    assert not composer.use_tool.isChecked()
    off = as_seen(composer)
    composer.use_tool.setChecked(True)
    on = as_seen(composer)
    save_screenshot(composer, f"composer-tool-on-{theme.current().name}")
    assert distance(on, off) >= CLEARLY_DIFFERENT, (on.name(), off.name())
