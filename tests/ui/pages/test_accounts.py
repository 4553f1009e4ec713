"""Accounts forms come from a connector's settings model; secrets go to a real Secret Service,
or, on a computer without one, are held for the session and said to be."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from hearth import Connector
from hearth.assistant import Assistant
from hearth.secrets import SystemKeyring
from hearth.ui.context import UiContext
from hearth.ui.forms import SECRET_KEPT, SECRET_MISSING
from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.connector_settings import ConnectorSettingsPanel
from hearth.ui.pages.password_store import MAKE
from tests.ui.conftest import save_screenshot
from tests.ui.pages.kit import Desk, DeskPlugin
from tests.ui.pages.login_server import PASSWORD, LoginServer, ServerSettings, check_server


@pytest.fixture
def server() -> Iterator[LoginServer]:
    running = LoginServer()
    running.thread.start()
    yield running
    running.stop()


@pytest.fixture
def plugin(desk: Desk) -> DeskPlugin:
    server = Connector(
        "server",
        "Example Server",
        "A login server on this machine.",
        settings=ServerSettings,
        test_connection=check_server,
    )
    return DeskPlugin(desk, extra=(server,))


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, secure_keyring: SystemKeyring) -> AccountsPage:
    return open_page(qtbot, context)


def open_page(qtbot: QtBot, context: UiContext) -> AccountsPage:
    widget = AccountsPage(context)
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    with qtbot.waitSignal(widget.panels["server"].settings_did_load):
        widget.show()
    return widget


def panel(page: AccountsPage) -> ConnectorSettingsPanel:
    return page.show_connector("server")


def type_in(form_panel: ConnectorSettingsPanel, **values: str) -> None:
    for name, text in values.items():
        widget = form_panel.form.inputs[name].widget
        assert isinstance(widget, QLineEdit)
        widget.setText(text)


def save(qtbot: QtBot, form_panel: ConnectorSettingsPanel) -> None:
    with qtbot.waitSignal(form_panel.settings_did_save):
        form_panel.save_button.click()


def test_the_form_is_built_from_the_settings_model(page: AccountsPage) -> None:
    inputs = panel(page).form.inputs
    assert list(inputs) == ["host", "port", "password", "security", "verbose"]
    password = inputs["password"].widget
    assert isinstance(password, QLineEdit)
    assert password.echoMode() == QLineEdit.EchoMode.Password
    assert password.placeholderText() == SECRET_MISSING
    assert isinstance(inputs["security"].widget, QComboBox)
    assert isinstance(inputs["verbose"].widget, QCheckBox)
    assert inputs["port"].value() is None and inputs["security"].value() == "none"
    # Connectors without settings get no form.
    assert list(page.panels) == ["server"]


def test_saving_puts_the_secret_in_the_keyring_and_never_shows_it_again(
    qtbot: QtBot,
    page: AccountsPage,
    context: UiContext,
    secure_keyring: SystemKeyring,
    hearth_home: Path,
) -> None:
    form_panel = panel(page)
    type_in(form_panel, host="127.0.0.1", port="1143", password=PASSWORD)
    save(qtbot, form_panel)
    assert form_panel.status.text() == "Saved."
    saved = json.loads(context.settings.path("server").read_text(encoding="utf-8"))
    assert saved == {
        "host": "127.0.0.1",
        "port": 1143,
        "security": "none",
        "verbose": False,
        "shares": [],
    }
    assert secure_keyring.get("server.password") == PASSWORD
    for path in [p for p in hearth_home.rglob("*") if p.is_file()]:
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path

    reopened = AccountsPage(context)
    qtbot.addWidget(reopened)
    with qtbot.waitSignal(reopened.panels["server"].settings_did_load):
        pass
    inputs = reopened.panels["server"].form.inputs
    assert inputs["host"].value() == "127.0.0.1" and inputs["port"].value() == 1143
    password = inputs["password"].widget
    assert isinstance(password, QLineEdit)
    assert password.text() == "" and password.placeholderText() == SECRET_KEPT


def test_test_connection_uses_the_stored_secret_and_reports_a_closed_server(
    qtbot: QtBot, page: AccountsPage, context: UiContext, server: LoginServer
) -> None:
    form_panel = panel(page)
    type_in(form_panel, host="127.0.0.1", port=str(server.port), password=PASSWORD)
    save(qtbot, form_panel)
    assert form_panel.form.inputs["password"].value() is None  # blank again, kept in keyring
    with qtbot.waitSignal(form_panel.connection_did_test) as tested:
        form_panel.test_button.click()
    assert tested.args == [True, "logged in"]  # what the connector's check said
    assert server.passwords == [PASSWORD]

    type_in(form_panel, password="wrong")
    with qtbot.waitSignal(context.errors.error_shown) as shown:
        form_panel.test_button.click()
    assert shown.args == [
        "connect to Example Server",
        "127.0.0.1 refused the password. Check it and try again.",
    ]

    server.stop()
    type_in(form_panel, password="")
    with qtbot.waitSignal(form_panel.connection_did_test) as tested:
        form_panel.test_button.click()
    assert tested.args[0] is False
    assert f"Could not reach 127.0.0.1:{server.port}" in tested.args[1]
    assert form_panel.status.text() == f"The connection test failed: {tested.args[1]}"
    assert form_panel.test_button.isEnabled()


def test_fields_managed_elsewhere_are_not_shown_and_survive_a_save(
    qtbot: QtBot, page: AccountsPage, context: UiContext
) -> None:
    stored = ServerSettings(host="old.example.org", port=1, password=PASSWORD, shares=["/srv/a"])
    context.settings.save("server", stored)
    form_panel = panel(page)
    with qtbot.waitSignal(form_panel.settings_did_load):
        form_panel.reload()
    assert "shares" not in form_panel.form.inputs
    assert form_panel.form.inputs["host"].value() == "old.example.org"
    type_in(form_panel, host="new.example.org")
    save(qtbot, form_panel)
    loaded = context.settings.load("server", ServerSettings)
    assert (loaded.host, loaded.shares) == ("new.example.org", ["/srv/a"])
    assert loaded.password.get_secret_value() == PASSWORD


def test_missing_fields_are_named_in_the_error(
    qtbot: QtBot, page: AccountsPage, context: UiContext
) -> None:
    form_panel = panel(page)
    type_in(form_panel, host="mail.example.org")
    with qtbot.waitSignal(context.errors.error_shown) as shown:
        form_panel.save_button.click()
    assert shown.args == [
        "save the Example Server settings",
        "Check these fields: Port is required; Password is required.",
    ]
    assert not context.settings.is_saved("server")


def test_without_a_keyring_save_keeps_the_password_for_the_session_and_says_so(
    qtbot: QtBot, context: UiContext, server: LoginServer, hearth_home: Path
) -> None:
    # What `keyring` would fall back to here; Hearth must neither use it nor fail on it.
    keyring.set_keyring(fail.Keyring())
    page = open_page(qtbot, context)
    assert page.passwords.text.text().startswith("This computer has no keyring")
    assert page.passwords.button.isVisible() and page.passwords.button.text() == MAKE
    form_panel = panel(page)
    type_in(form_panel, host="127.0.0.1", port=str(server.port), password=PASSWORD)
    errors: list[object] = []
    context.errors.error_shown.connect(lambda *args: errors.append(args))
    save(qtbot, form_panel)
    assert errors == []
    assert form_panel.status.text() == (
        "Saved. The password is used for this session only: this computer has no keyring. "
        "To keep it, make a password store (top of the page)."
    )
    assert context.settings.is_saved("server")  # the plain fields were kept
    loaded = context.settings.load("server", ServerSettings)
    assert loaded.password is not None and loaded.password.get_secret_value() == PASSWORD
    for path in [p for p in hearth_home.rglob("*") if p.is_file()]:
        assert PASSWORD.encode() not in path.read_bytes(), path
    with qtbot.waitSignal(form_panel.connection_did_test) as tested:
        form_panel.test_button.click()
    assert tested.args[0] is True


def test_forget_asks_then_deletes_settings_and_secret(
    qtbot: QtBot, page: AccountsPage, context: UiContext, secure_keyring: SystemKeyring
) -> None:
    form_panel = panel(page)
    type_in(form_panel, host="127.0.0.1", port="1143", password=PASSWORD)
    save(qtbot, form_panel)
    form_panel.forget_button.click()
    box = form_panel.confirm_box
    assert box is not None and box.isVisible()
    with qtbot.waitSignal(form_panel.settings_did_forget):
        box.button(QMessageBox.StandardButton.Yes).click()
    assert not context.settings.is_saved("server")
    assert secure_keyring.get("server.password") is None
    assert form_panel.form.inputs["host"].value() is None


def test_a_page_without_configurable_connectors_says_so(qtbot: QtBot, desk: Desk) -> None:
    core = Assistant.open(plugins=[DeskPlugin(desk)], entry_points=False)
    context = UiContext(core)
    try:
        page = AccountsPage(context)
        qtbot.addWidget(page)
        assert page.panels == {}
    finally:
        context.shutdown()
        core.close()


def test_screenshot_of_the_form(qtbot: QtBot, page: AccountsPage) -> None:
    form_panel = panel(page)
    type_in(form_panel, host="imap.example.org", port="993", password=PASSWORD)
    save(qtbot, form_panel)
    assert save_screenshot(page, "accounts").exists()
