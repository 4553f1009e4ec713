"""The window at narrow widths with its real pages: the side bar folds to icons, the Accounts
System section and the Permissions table keep their text readable, down to the minimum width.

The System section reads a real backlight folder and nmcli answering from recordings, as in
test_system_status; the Permissions page lists rules on the real files and system tools.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QModelIndex, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QTableView, QToolTip
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.connectors.system.battery import PsutilBattery
from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.connector import SystemConnector
from hearth.connectors.system.linux_audio import audio_controls
from hearth.connectors.system.linux_backlight import SysfsBrightness
from hearth.connectors.system.linux_desktop import GsettingsDnd
from hearth.connectors.system.linux_network import NmcliWifi
from hearth.connectors.system.machine import Machine
from hearth.consent import Rule
from hearth.ui import theme
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.permissions import PermissionsPage
from hearth.ui.sidebar import RAIL_WIDTH
from tests.connectors.mail.test_wifi_recovery import Plugin
from tests.connectors.system.desktop_fixtures import make_backlight
from tests.connectors.system.recorded import RecordedRunner, said
from tests.ui.conftest import save_screenshot
from tests.ui.geometry import cut_labels, past_right_edge

MINIMUM_WIDTH = 640  # as docs/user-guide.md says
WIDTHS = (1400, 1000, MINIMUM_WIDTH)
READABLE_CHARS = 12  # a text column narrower than this many letters cannot be read
WIFI_LIST = ("nmcli", "-t", "-f", "ACTIVE,SSID", "device", "wifi", "list", "--rescan", "no")
HOME = "/home/ann"


@pytest.fixture
def assistant(tmp_path: Path) -> Iterator[Assistant]:
    backlight = tmp_path / "backlight"
    make_backlight(backlight, "intel_backlight", 96000, 240000)
    nmcli = RecordedRunner(
        {
            ("nmcli", "-t", "-f", "RUNNING", "general"): said("running\n"),
            ("nmcli", "-t", "-f", "WIFI", "radio"): said("enabled\n"),
            WIFI_LIST: said("no:Neighbours\nyes:Home\\: upstairs\n"),
        },
        programs=["nmcli"],
    )
    runner = CommandRunner()
    machine = Machine(
        [
            NmcliWifi(nmcli),
            *audio_controls(runner),
            SysfsBrightness(backlight),
            GsettingsDnd(runner),
        ],
        batteries=[PsutilBattery()],
    )
    files = FilesConnector(FileLibrary(poll_seconds=0.5))
    core = Assistant.open(plugins=[Plugin(SystemConnector(machine), files)], entry_points=False)
    yield core
    core.close()
    files.close()


@pytest.fixture
def window(qtbot: QtBot, context: UiContext) -> Iterator[MainWindow]:
    main = MainWindow(context)
    qtbot.addWidget(main)
    main.resize(1100, 760)
    main.show()
    qtbot.waitExposed(main)
    yield main
    main.close()


def add_rules(assistant: Assistant) -> None:
    """Rules as a user collects them: long folders, an untrusted allowance, uses and expiries."""
    now, day = time.time(), 24 * 3600
    examples = [
        ("files.read", "allow", f"{HOME}/Documents/Taxes/2024/receipts", "always", now - 300),
        ("files.move", "allow", f"{HOME}/Downloads", "always", now - 600),
        ("files.write_text", "ask", f"{HOME}/Notes/Projects/kitchen renovation", "always", None),
        ("files.trash", "deny", None, "always", None),
        ("system.set_volume", "allow", "volume", "always", now - 2 * day),
    ]
    for tool, decision, scope, duration, used in examples:
        rule = Rule.create(
            tool,
            decision,  # type: ignore[arg-type]
            now=now - 3 * day,
            scope=scope,
            duration=duration,  # type: ignore[arg-type]
            after_untrusted=tool == "files.move",
        )
        assistant.rules.add(rule)
        if used is not None:
            assistant.rules.mark_used(rule.id, now=used)


def settle(qtbot: QtBot, window: MainWindow, width: int) -> None:
    window.resize(width, 760)
    qtbot.waitUntil(lambda: window.width() == max(width, window.minimumWidth()))
    qtbot.wait(100)
    QApplication.processEvents()


def open_system(qtbot: QtBot, window: MainWindow) -> AccountsPage:
    """The Accounts page on its System section, once the strip has read this machine (it reads
    again each time the section shows)."""
    window.open_page("Accounts")
    page = window.pages["Accounts"]
    assert isinstance(page, AccountsPage)
    with qtbot.waitSignal(page.status_panels["system"].strip.items_did_show, timeout=20_000):
        page.show_status("system")
    QApplication.processEvents()  # the new rows' layout
    return page


def open_permissions(window: MainWindow) -> PermissionsPage:
    window.open_page("Permissions")
    page = window.pages["Permissions"]
    assert isinstance(page, PermissionsPage)
    return page


def assert_fits(window: MainWindow) -> None:
    assert not (found := past_right_edge(window)), (window.width(), found)
    assert not (found := cut_labels(window)), (window.width(), found)


def assert_status_readable(page: AccountsPage) -> None:
    strip = page.status_panels["system"].strip
    letters = strip.fontMetrics().averageCharWidth() * READABLE_CHARS
    for label, value, detail in strip.rows:
        for shown in (label, value, detail):
            assert shown.width() >= min(letters, shown.sizeHint().width()), shown.text()
        assert detail.height() >= detail.heightForWidth(detail.width()), detail.text()


def assert_columns_readable(table: QTableView) -> None:
    """Every column is wide enough to read, and the columns fit the table without scrolling."""
    header = table.horizontalHeader()
    letters = table.fontMetrics().averageCharWidth() * READABLE_CHARS
    model = table.model()
    for column in range(model.columnCount()):
        needed = max(header.sectionSizeHint(column), table.sizeHintForColumn(column))
        assert table.columnWidth(column) >= min(letters, needed), model.headerData(
            column, Qt.Orientation.Horizontal
        )
    assert header.length() <= table.viewport().width(), (header.length(), table.viewport())
    assert not table.horizontalScrollBar().isVisible()


def test_the_side_bar_folds_to_icons_in_a_narrow_window_and_unfolds_on_request(
    qtbot: QtBot, window: MainWindow
) -> None:
    settle(qtbot, window, MINIMUM_WIDTH)
    sidebar = window.sidebar
    assert sidebar.width() <= RAIL_WIDTH
    assert not window.conversations.isVisible()
    navigation = window.navigation
    assert navigation.isVisible()
    for row in range(navigation.count()):  # every page is still one click away, by its icon
        rect = navigation.visualItemRect(navigation.item(row))
        assert navigation.viewport().rect().contains(rect), navigation.item(row).text()
        assert navigation.item(row).toolTip() == navigation.item(row).text()
    qtbot.mouseClick(sidebar.toggle, Qt.MouseButton.LeftButton)
    assert window.conversations.isVisible() and sidebar.width() > RAIL_WIDTH
    rect = navigation.visualItemRect(navigation.item(1))
    qtbot.mouseClick(navigation.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.stack.currentWidget() is window.pages[navigation.item(1).text()]
    qtbot.waitUntil(lambda: sidebar.width() <= RAIL_WIDTH)  # picked: it folds away again
    settle(qtbot, window, 1000)
    assert window.conversations.isVisible() and sidebar.width() > RAIL_WIDTH


def test_ctrl_k_unfolds_the_side_bar_to_search(qtbot: QtBot, window: MainWindow) -> None:
    settle(qtbot, window, MINIMUM_WIDTH)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.conversations.search.hasFocus())
    assert window.conversations.search.isVisible()


def test_the_system_section_and_the_permissions_fit_the_minimum_width(
    qtbot: QtBot, window: MainWindow, assistant: Assistant
) -> None:
    add_rules(assistant)
    settle(qtbot, window, MINIMUM_WIDTH)
    accounts = open_system(qtbot, window)
    assert_fits(window)
    assert_status_readable(accounts)
    assert accounts.status_panels["system"].strip.stacked  # the reasons went under the values
    permissions = open_permissions(window)
    QApplication.processEvents()
    assert_fits(window)
    assert_columns_readable(permissions.table)
    assert window.width() == window.minimumWidth() == MINIMUM_WIDTH


def test_a_cut_cell_shows_its_whole_text_as_a_tooltip(
    qtbot: QtBot, window: MainWindow, assistant: Assistant
) -> None:
    add_rules(assistant)
    settle(qtbot, window, MINIMUM_WIDTH)
    table = open_permissions(window).table
    QApplication.processEvents()
    model = table.model()
    cells = [model.index(row, column) for row in range(model.rowCount()) for column in range(6)]
    cut = [i for i in cells if table.sizeHintForIndex(i).width() > table.columnWidth(i.column())]
    assert cut, "nothing is cut at the minimum width: the test shows nothing"
    for index in cut:
        assert str(index.data()) in tooltip_over(table, index), index.data()


def tooltip_over(table: QTableView, index: QModelIndex) -> str:
    """The tooltip the view shows when the pointer rests on this cell."""
    QToolTip.hideText()
    inside = table.visualRect(index).center()
    viewport = table.viewport()
    event = QHelpEvent(QEvent.Type.ToolTip, inside, viewport.mapToGlobal(inside))
    QApplication.sendEvent(viewport, event)
    return QToolTip.text()


@pytest.mark.parametrize("name", ["light", "dark"])
def test_screenshots_of_the_pages_at_three_widths(
    qtbot: QtBot, window: MainWindow, assistant: Assistant, name: str
) -> None:
    add_rules(assistant)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, theme.DARK if name == "dark" else theme.LIGHT)
    try:
        window.refresh_icons()
        for width in WIDTHS:
            settle(qtbot, window, width)
            accounts = open_system(qtbot, window)
            QApplication.processEvents()
            save_screenshot(window, f"narrow-accounts-system-{width}-{name}")
            assert_fits(window)
            assert_status_readable(accounts)
            permissions = open_permissions(window)
            QApplication.processEvents()
            save_screenshot(window, f"narrow-permissions-{width}-{name}")
            assert_fits(window)
            assert_columns_readable(permissions.table)
    finally:
        theme.apply_theme(app, theme.LIGHT)


def test_the_models_page_fits_the_minimum_width(qtbot: QtBot, window: MainWindow) -> None:
    settle(qtbot, window, MINIMUM_WIDTH)
    window.open_page("Models")
    QApplication.processEvents()
    qtbot.wait(200)
    assert_fits(window)
    area = window.pages["Models"].page_area
    assert area.horizontalScrollBar().maximum() == 0  # the page never scrolls sideways
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
    save_screenshot(window, "narrow-models-640-voice")
