"""The Accounts page with the real calendar connector: its form, Test connection against a real
Radicale server, and the connector's own status line under the form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from hearth.settings.model import SettingsStore
from hearth.ui.context import UiContext
from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.connector_settings import ConnectorSettingsPanel
from tests.connectors.calendar.conftest import radicale  # noqa: F401 (fixture)
from tests.connectors.calendar.kit import NOW, TODAY, CalendarPlugin, server_calendar
from tests.ui.conftest import save_screenshot

FIELDS = [
    "server",
    "username",
    "password",
    "trusted_certificate",
    "ics_files",
    "time_zone",
    "day_starts",
    "day_ends",
    "sync_minutes",
]


@pytest.fixture
def calendar(tmp_path: Path) -> Iterator[CalendarConnector]:
    """The calendar connector over the same settings store the Accounts page writes."""
    library = CalendarLibrary(
        SettingsStore(), tmp_path / "calendar-cache.sqlite", today=lambda: TODAY, now=lambda: NOW
    )
    connector = CalendarConnector(library, ChangeLog(tmp_path / "changes.sqlite"))
    yield connector
    library.stop()
    connector.changes.close()


@pytest.fixture
def assistant(calendar: CalendarConnector) -> Iterator[Assistant]:
    # Not started: the test syncs when it wants to, so what the status line says is known.
    core = Assistant.open(
        plugins=[CalendarPlugin(calendar)], entry_points=False, start_connectors=False
    )
    yield core
    core.close()


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, secure_keyring: object) -> AccountsPage:
    widget = AccountsPage(context)
    qtbot.addWidget(widget)
    widget.resize(960, 720)
    form_panel = widget.panels["calendar"]
    with qtbot.waitSignals([form_panel.settings_did_load, form_panel.status_did_refresh]):
        widget.show()
    return widget


@pytest.fixture
def panel(page: AccountsPage) -> ConnectorSettingsPanel:
    return page.show_connector("calendar")


def type_in(form_panel: ConnectorSettingsPanel, **values: str) -> None:
    for name, text in values.items():
        widget = form_panel.form.inputs[name].widget
        assert isinstance(widget, QLineEdit)
        widget.setText(text)


def test_the_calendar_form_has_its_fields(panel: ConnectorSettingsPanel) -> None:
    inputs = panel.form.inputs
    assert list(inputs) == FIELDS
    password = inputs["password"].widget
    assert isinstance(password, QLineEdit)
    assert password.echoMode() == QLineEdit.EchoMode.Password
    assert (inputs["day_starts"].value(), inputs["day_ends"].value()) == (9, 17)
    assert not panel.connector_status.isVisible()  # no calendars yet: nothing to say


def test_connecting_to_radicale_shows_the_calendars_and_the_sync_status(
    qtbot: QtBot,
    panel: ConnectorSettingsPanel,
    calendar: CalendarConnector,
    radicale: RadicaleServer,  # noqa: F811
) -> None:
    for name in ("Work", "Personal"):
        server_calendar(radicale, name)
    type_in(panel, server=radicale.url, username=USER, password=PASSWORD, time_zone="Europe/Berlin")
    with qtbot.waitSignals([panel.settings_did_save, panel.status_did_refresh]):
        panel.save_button.click()
    assert calendar.library.settings().server == radicale.url

    with qtbot.waitSignal(panel.connection_did_test, timeout=20_000) as tested:
        panel.test_button.click()
    succeeded, message = tested.args
    assert succeeded and message.startswith("Connected: 2 calendars (")
    assert "Work" in message and "Personal" in message
    assert panel.status.text() == message

    calendar.library.refresh()  # the sync a running Hearth does in the background
    with qtbot.waitSignal(panel.status_did_refresh) as refreshed:
        panel.refresh_status()
    line = refreshed.args[0]
    assert line == calendar.status_line()
    assert "Work" in line and "Personal" in line and "synced" in line
    assert panel.connector_status.text() == line and panel.connector_status.isVisible()
    assert panel.status_timer.isActive()
    assert save_screenshot(panel.window(), "accounts_calendar").exists()

    panel.window().hide()
    assert not panel.status_timer.isActive()  # nobody looks: no reads every minute


def test_a_wrong_password_says_so(
    qtbot: QtBot,
    panel: ConnectorSettingsPanel,
    context: UiContext,
    radicale: RadicaleServer,  # noqa: F811
) -> None:
    server_calendar(radicale, "Work")
    type_in(panel, server=radicale.url, username=USER, password="wrong")
    with qtbot.waitSignal(panel.connection_did_test, timeout=20_000) as tested:
        panel.test_button.click()
    assert tested.args[0] is False
    assert panel.status.text() == f"The connection test failed: {tested.args[1]}"


def test_calendar_files_typed_in_the_form_are_used_and_a_missing_one_is_named(
    qtbot: QtBot, panel: ConnectorSettingsPanel, calendar: CalendarConnector, tmp_path: Path
) -> None:
    home = tmp_path / "home.ics"
    home.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Demo//EN\r\nX-WR-CALNAME:Home\r\n"
        "END:VCALENDAR\r\n"
    )
    files = panel.form.inputs["ics_files"].widget
    assert isinstance(files, QPlainTextEdit)
    files.setPlainText(f"{home}\n{tmp_path / 'gone.ics'}\n")
    with qtbot.waitSignal(panel.settings_did_save):
        panel.save_button.click()
    calendar.library.refresh()
    with qtbot.waitSignal(panel.status_did_refresh) as refreshed:
        panel.refresh_status()
    assert refreshed.args[0].startswith("Home: synced just now")
    assert f"not found: {tmp_path / 'gone.ics'}" in refreshed.args[0]


def test_one_calendar_found_is_counted_as_one(
    qtbot: QtBot,
    panel: ConnectorSettingsPanel,
    radicale: RadicaleServer,  # noqa: F811
) -> None:
    server_calendar(radicale, "Work")
    type_in(panel, server=radicale.url, username=USER, password=PASSWORD)
    with qtbot.waitSignal(panel.connection_did_test, timeout=20_000) as tested:
        panel.test_button.click()
    assert tested.args == [True, "Connected: 1 calendar (Work)."]
