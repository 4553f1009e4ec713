"""The Accounts page as it is used: the wheel scrolls the page, help text shows whole at once,
a status that cannot be read says why, and each section opens at its top."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

import pydantic
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from hearth import Connector, StatusItem
from hearth.assistant import Assistant
from hearth.ui.context import UiContext
from hearth.ui.pages.accounts import AccountsPage
from tests.ui.conftest import save_screenshot
from tests.ui.pages.kit import Desk, DeskPlugin

HELP = (
    "How carefully the relay forwards what it is given: fast sends at once and retries "
    "nothing, careful waits for the far end to confirm each piece and retries twice, and "
    "slow also checks every piece against its fingerprint before it lets the next one go."
)


class RelaySettings(pydantic.BaseModel):
    """Enough fields, each with a long help text, for the form to be taller than the page."""

    mode: Literal["fast", "careful", "slow"] = pydantic.Field("careful", description=HELP)
    host: str = pydantic.Field("relay.example.org", description=HELP)
    port: int = pydantic.Field(4242, description=HELP)
    mailbox: str = pydantic.Field("", description=HELP)
    folder: str = pydantic.Field("", description=HELP)
    label: str = pydantic.Field("", description=HELP)


class Unreadable(Connector):
    """A connector whose status cannot be read, by an error that says nothing about itself."""

    def status_line(self) -> str | None:
        raise TimeoutError

    def status_items(self) -> Sequence[StatusItem]:
        raise TimeoutError


@pytest.fixture
def plugin(desk: Desk) -> DeskPlugin:
    relay = Unreadable("relay", "Relay", "A relay with many settings.", settings=RelaySettings)
    probe = Unreadable("probe", "Probe", "A probe with no settings.")
    return DeskPlugin(desk, extra=(relay, probe))


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, assistant: Assistant) -> Iterator[AccountsPage]:
    widget = AccountsPage(context)
    qtbot.addWidget(widget)
    widget.resize(900, 480)
    relay = widget.panels["relay"]
    with qtbot.waitSignals([relay.settings_did_load, relay.status_did_refresh]):
        widget.show()
    qtbot.waitExposed(widget)
    yield widget


def scroll_area(section: QWidget) -> QScrollArea:
    """The scroll area `section` scrolls in."""
    parent = section.parentWidget()
    while not isinstance(parent, QScrollArea):
        assert parent is not None
        parent = parent.parentWidget()
    return parent


def wheel_down(widget: QWidget) -> None:
    """One notch of the mouse wheel over the middle of `widget`, as the window system sends it."""
    window = widget.window()
    handle = window.windowHandle()
    assert handle is not None
    inside = widget.mapTo(window, widget.rect().center())
    QTest.wheelEvent(handle, QPointF(inside), QPoint(0, -120))
    QApplication.processEvents()


def test_the_wheel_over_a_drop_down_scrolls_the_page_and_leaves_the_value(
    qtbot: QtBot, page: AccountsPage
) -> None:
    relay = page.show_connector("relay")
    combo = relay.form.inputs["mode"].widget
    assert isinstance(combo, QComboBox)
    bar = scroll_area(relay).verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0  # the form is taller than the page
    before = combo.currentText()

    wheel_down(combo)

    assert combo.currentText() == before
    assert bar.value() > 0
    assert combo.focusPolicy() == Qt.FocusPolicy.StrongFocus

    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    combo.setFocus(Qt.FocusReason.TabFocusReason)  # chosen on purpose: now the wheel is its own
    qtbot.waitUntil(combo.hasFocus)
    scrolled = bar.value()
    wheel_down(combo)
    assert combo.currentText() != before
    assert bar.value() == scrolled


def test_every_help_text_shows_whole_at_first_show(page: AccountsPage) -> None:
    form = page.show_connector("relay").form
    helps = [label for label in form.findChildren(QLabel) if label.text() == HELP]
    assert len(helps) == len(form.inputs)
    save_screenshot(page, "accounts-help-text")
    for label in helps:
        needed = label.heightForWidth(label.width())
        assert needed >= 3 * label.fontMetrics().lineSpacing()  # it does wrap to 3 lines
        assert label.height() >= needed, (label.height(), needed)


def test_a_status_that_cannot_be_read_says_why(qtbot: QtBot, page: AccountsPage) -> None:
    relay = page.show_connector("relay")
    line = relay.connector_status.text()
    assert line.startswith("Status not available: ")
    assert line.removeprefix("Status not available: ").strip()
    assert "TimeoutError" in line or "timed out" in line

    probe = page.show_status("probe")
    qtbot.waitUntil(lambda: probe.strip.problem.isVisible() and probe.connector_status.isVisible())
    for said in (probe.strip.problem.text(), probe.connector_status.text()):
        assert said.startswith("Status not available: ")
        assert said.removeprefix("Status not available: ").strip()
    save_screenshot(page, "accounts-status-unavailable")


def test_each_section_opens_at_its_top_and_scrolls_only_as_far_as_it_goes(
    page: AccountsPage,
) -> None:
    relay = page.show_connector("relay")
    bar = scroll_area(relay).verticalScrollBar()
    bar.setValue(bar.maximum())
    assert bar.value() > 0

    probe = page.show_status("probe")
    QApplication.processEvents()
    assert scroll_area(probe).verticalScrollBar().value() == 0
    assert probe.visibleRegion().boundingRect().top() == 0  # its heading shows
    # The short section fits: no scrolling into the room the taller one needs.
    assert not scroll_area(probe).verticalScrollBar().isVisible()

    page.show_connector("relay")
    QApplication.processEvents()
    assert scroll_area(relay).verticalScrollBar().value() == 0
    assert relay.visibleRegion().boundingRect().top() == 0
