"""The Accounts page with the real mail connector: its form, Test connection against a real
Dovecot and a real SMTP server over TLS (trusting the test CA), and the password kept in the
keyring only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QComboBox, QLineEdit, QMessageBox, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.evaluation.servers.dovecot import ADDRESS, PASSWORD, USER, DovecotServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.account import NAME, MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.settings.model import SettingsStore
from hearth.ui.context import UiContext
from hearth.ui.forms import SECRET_KEPT
from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.connector_settings import ConnectorSettingsPanel
from tests.connectors.mail.conftest import dovecot, mail_ca, smtp_server, trust_mail_ca  # noqa: F401
from tests.connectors.mail.kit import MailPlugin, account_settings, run
from tests.ui.conftest import save_screenshot

FIELDS = [
    "address",
    "display_name",
    "username",
    "password",
    "imap_host",
    "imap_port",
    "imap_security",
    "smtp_host",
    "smtp_port",
    "smtp_security",
    "server_files_sent",
    "imap_trusted_certificate",
    "smtp_trusted_certificate",
    "sync_minutes",
]
TEST_TIMEOUT_MS = 30_000


@pytest.fixture
def mail(tmp_path: Path) -> Iterator[MailConnector]:
    """The mail connector over the same settings store (HEARTH_HOME) the Accounts page writes."""
    connector = MailConnector(MailAccount(SettingsStore(), tmp_path / "mail"))
    yield connector
    connector.account.stop()


@pytest.fixture
def assistant(mail: MailConnector) -> Iterator[Assistant]:
    # Not started: no background sync, so the status line says only what the test did.
    core = Assistant.open(plugins=[MailPlugin(mail)], entry_points=False, start_connectors=False)
    yield core
    core.close()


@pytest.fixture
def page(qtbot: QtBot, context: UiContext, secure_keyring: object) -> AccountsPage:
    widget = AccountsPage(context)
    qtbot.addWidget(widget)
    widget.resize(960, 900)
    form_panel = widget.panels[NAME]
    with qtbot.waitSignals([form_panel.settings_did_load, form_panel.status_did_refresh]):
        widget.show()
    return widget


@pytest.fixture
def panel(page: AccountsPage) -> ConnectorSettingsPanel:
    return page.show_connector(NAME)


def enter(form_panel: ConnectorSettingsPanel, **values: Any) -> None:
    """Type text into line edits and pick choices in combo boxes, as the user does."""
    for name, value in values.items():
        widget = form_panel.form.inputs[name].widget
        if isinstance(widget, QComboBox):
            index = widget.findData(value)
            assert index >= 0, f"{name} offers no {value!r}"
            widget.setCurrentIndex(index)
        else:
            assert isinstance(widget, QLineEdit), name
            widget.setText(str(value))


def enter_test_servers(
    form_panel: ConnectorSettingsPanel, server: DovecotServer, smtp: SmtpServer, password: str
) -> None:
    enter(
        form_panel,
        address=ADDRESS,
        display_name="Ann Example",
        username=USER,
        password=password,
        imap_host=server.host,
        imap_port=server.tls_port,
        imap_security="tls",
        smtp_host=smtp.host,
        smtp_port=smtp.port,
        smtp_security=smtp.mode,
    )


def scroll_to(form_panel: ConnectorSettingsPanel, widget: QWidget) -> None:
    """Scroll the Accounts page so `widget` (under the tall form) is on screen."""
    area = form_panel.window().findChild(QScrollArea)
    assert area is not None
    area.ensureWidgetVisible(widget)


def test_the_mail_form_has_its_fields(panel: ConnectorSettingsPanel) -> None:
    inputs = panel.form.inputs
    assert list(inputs) == FIELDS
    password = inputs["password"].widget
    assert isinstance(password, QLineEdit)
    assert password.echoMode() == QLineEdit.EchoMode.Password
    for choice in ("imap_security", "smtp_security"):
        combo = inputs[choice].widget
        assert isinstance(combo, QComboBox)
        offered = [combo.itemData(i) for i in range(combo.count()) if combo.itemData(i)]
        assert offered == ["auto", "tls", "starttls"]  # never a choice without encryption
    assert inputs["sync_minutes"].value() == 5
    assert panel.test_button.isVisible()
    assert not panel.connector_status.isVisible()  # no account yet: nothing to say


def test_test_connection_logs_in_to_imap_and_smtp_and_save_keeps_the_password_in_the_keyring(
    qtbot: QtBot,
    panel: ConnectorSettingsPanel,
    context: UiContext,
    mail: MailConnector,
    secure_keyring: Any,
    hearth_home: Path,
    dovecot: DovecotServer,  # noqa: F811
    smtp_server: SmtpServer,  # noqa: F811
) -> None:
    enter_test_servers(panel, dovecot, smtp_server, PASSWORD)
    with qtbot.waitSignal(panel.connection_did_test, timeout=TEST_TIMEOUT_MS) as tested:
        panel.test_button.click()
    succeeded, message = tested.args
    assert succeeded, message
    assert message.startswith(f"Connected: IMAP {dovecot.host} (")
    assert f"and SMTP {smtp_server.host}, both over verified TLS." in message
    assert panel.status.text() == message
    scroll_to(panel, panel.status)
    assert panel.status.isVisible()
    assert save_screenshot(panel.window(), "accounts_mail_connected").exists()
    assert smtp_server.received == []  # a test logs in; it sends nothing

    with qtbot.waitSignal(panel.settings_did_save, timeout=10_000):
        panel.save_button.click()
    assert panel.status.text() == "Saved."
    saved_file = context.settings.path(NAME)
    text = saved_file.read_text(encoding="utf-8")
    assert ADDRESS in text and str(dovecot.tls_port) in text
    assert PASSWORD not in text and "password" not in text.lower()
    assert secure_keyring.get(f"{NAME}.password") == PASSWORD
    for path in hearth_home.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path
    settings = mail.account.settings()  # what the connector reads: file + keyring
    assert settings.password is not None and settings.password.get_secret_value() == PASSWORD
    assert settings.imap() == (dovecot.host, dovecot.tls_port, "tls")
    password = panel.form.inputs["password"].widget
    assert isinstance(password, QLineEdit)
    assert password.text() == "" and password.placeholderText() == SECRET_KEPT
    # The status line is read again after Save; an older read (after the test) may land first.
    qtbot.waitUntil(lambda: panel.connector_status.text() == ADDRESS)
    assert panel.connector_status.isVisible()
    assert save_screenshot(panel.window(), "accounts_mail").exists()

    # Blank password field: Test connection uses the one in the keyring.
    with qtbot.waitSignal(panel.connection_did_test, timeout=TEST_TIMEOUT_MS) as again:
        panel.test_button.click()
    assert again.args[0] is True, again.args[1]


def test_a_wrong_password_shows_the_servers_refusal(
    qtbot: QtBot,
    panel: ConnectorSettingsPanel,
    context: UiContext,
    dovecot: DovecotServer,  # noqa: F811
    smtp_server: SmtpServer,  # noqa: F811
) -> None:
    enter_test_servers(panel, dovecot, smtp_server, "wrong")
    with (
        qtbot.waitSignal(context.errors.error_shown, timeout=TEST_TIMEOUT_MS) as shown,
        qtbot.waitSignal(panel.connection_did_test, timeout=TEST_TIMEOUT_MS) as tested,
    ):
        panel.test_button.click()
    assert tested.args[0] is False
    refusal = (
        f"IMAP ({dovecot.host}:{dovecot.tls_port}): {dovecot.host} refused the user name or "
        f"password for {USER}."
    )
    assert tested.args[1].startswith(refusal)
    assert shown.args[0] == "connect to Mail" and shown.args[1].startswith(refusal)
    assert panel.status.text() == f"The connection test failed: {tested.args[1]}"
    assert panel.test_button.isEnabled()
    assert not context.settings.is_saved(NAME)  # a test saves nothing
    scroll_to(panel, panel.status)
    assert save_screenshot(panel.window(), "accounts_mail_wrong_password").exists()


def test_a_narrow_window_keeps_every_field_reachable(
    qtbot: QtBot, page: AccountsPage, panel: ConnectorSettingsPanel
) -> None:
    page.resize(560, 640)
    qtbot.wait(50)
    area = page.findChild(QScrollArea)
    assert area is not None
    for name, entry in panel.form.inputs.items():
        assert entry.widget.width() > 0, name
    # Wider than the view, the form scrolls sideways rather than cutting fields off for good.
    assert panel.width() <= area.viewport().width() or area.horizontalScrollBar().isVisible()
    assert save_screenshot(page, "accounts_mail_narrow").exists()


def test_mail_written_offline_is_sent_from_the_page_only_once_confirmed(
    qtbot: QtBot,
    page: AccountsPage,
    mail: MailConnector,
    dovecot: DovecotServer,  # noqa: F811
    smtp_server: SmtpServer,  # noqa: F811
) -> None:
    mail.account.save(account_settings(dovecot, smtp_server))
    port = smtp_server.port
    smtp_server.stop()
    assert run(mail, "mail.send", to=["bob@example.com"], subject="Later", body="Hi").state == (
        "queued"
    )
    back = SmtpServer(smtp_server.ca, "tls")
    back.port = port  # the same server, back online
    back.start()
    try:
        form_panel = page.show_connector(NAME)
        form_panel.refresh_status()
        qtbot.waitUntil(lambda: bool(form_panel.action_row.buttons), timeout=TEST_TIMEOUT_MS)
        [button] = form_panel.action_row.buttons
        assert button.text() == "Send 1 message waiting…"
        # The status line is read on the pool apart from the buttons: it may come second.
        qtbot.waitUntil(
            lambda: "1 message waiting for you to send" in form_panel.connector_status.text(),
            timeout=TEST_TIMEOUT_MS,
        )

        button.click()
        box = form_panel.action_row.confirm_box
        assert box is not None and box.defaultButton() is box.button(
            QMessageBox.StandardButton.Cancel
        )
        assert "• To bob@example.com: “Later”" in box.informativeText()
        scroll_to(form_panel, form_panel.action_row)
        save_screenshot(form_panel.window(), "accounts_mail_waiting")
        box.button(QMessageBox.StandardButton.Cancel).click()
        qtbot.wait(200)
        assert back.received == []  # cancelled: nothing went out

        button.click()
        with qtbot.waitSignal(form_panel.action_row.action_done, timeout=TEST_TIMEOUT_MS) as done:
            form_panel.action_row.confirm_box.button(QMessageBox.StandardButton.Yes).click()  # type: ignore[union-attr]
        assert done.args[0] == "Sent 1 message."
        assert len(back.received) == 1
        qtbot.waitUntil(lambda: not form_panel.action_row.isVisible(), timeout=TEST_TIMEOUT_MS)
    finally:
        back.stop()
