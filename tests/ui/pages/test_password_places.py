"""Mail and a CalDAV calendar set up in the window against real servers, in each of the three
places a password can go: the desktop keyring (a real Secret Service), Hearth's own encrypted
store, made in its own dialog, and, with neither, memory for this session, said plainly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QLineEdit
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.evaluation.servers import dovecot as mail_server
from hearth.connectors.evaluation.servers import radicale as calendar_server
from hearth.connectors.evaluation.servers.dovecot import DovecotServer, message
from hearth.connectors.evaluation.servers.radicale import RadicaleServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.settings import MailSettings
from hearth.secrets import Secrets
from hearth.ui.context import UiContext
from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.connector_settings import ConnectorSettingsPanel
from hearth.ui.pages.password_store import MAKE, UNLOCK, PasswordStoreDialog, ask_to_unlock
from tests.connectors.calendar.conftest import radicale  # noqa: F401 (fixture)
from tests.connectors.calendar.kit import CalendarPlugin, server_calendar
from tests.connectors.mail.conftest import dovecot, mail_ca, smtp_server, trust_mail_ca  # noqa: F401
from tests.connectors.mail.kit import MailPlugin, run
from tests.ui.conftest import save_screenshot
from tests.ui.pages.test_calendar_account import calendar  # noqa: F401 (fixture)
from tests.ui.pages.test_mail_account import enter_test_servers, mail  # noqa: F401

pytestmark = pytest.mark.server
STORE_PASSWORD = "correct horse battery"
SAVE_TIMEOUT_MS = 20_000


@pytest.fixture
def assistant(
    mail: MailConnector,  # noqa: F811
    calendar: CalendarConnector,  # noqa: F811
) -> Iterator[Assistant]:
    core = Assistant.open(
        plugins=[MailPlugin(mail), CalendarPlugin(calendar)],
        entry_points=False,
        start_connectors=False,
    )
    yield core
    core.close()


def open_page(qtbot: QtBot, context: UiContext) -> AccountsPage:
    page = AccountsPage(context)
    qtbot.addWidget(page)
    page.resize(1000, 900)
    with qtbot.waitSignals([p.settings_did_load for p in page.panels.values()]):
        page.show()
    return page


def save(qtbot: QtBot, panel: ConnectorSettingsPanel) -> str:
    with qtbot.waitSignal(panel.settings_did_save, timeout=SAVE_TIMEOUT_MS):
        panel.save_button.click()
    return panel.status.text()


def enter_account(panel: ConnectorSettingsPanel, radicale: RadicaleServer) -> None:  # noqa: F811
    for name, text in {
        "server": radicale.url,
        "username": calendar_server.USER,
        "password": calendar_server.PASSWORD,
    }.items():
        field = panel.form.inputs[name].widget
        assert isinstance(field, QLineEdit)
        field.setText(text)


def make_store(qtbot: QtBot, page: AccountsPage) -> None:
    assert page.passwords.button.text() == MAKE
    page.passwords.button.click()
    dialog = page.passwords.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.password.setText(STORE_PASSWORD)
    dialog.again.setText(STORE_PASSWORD + "x")
    dialog.accept()
    assert dialog.problem.text() == "The two passwords differ." and dialog.isVisible()
    dialog.again.setText(STORE_PASSWORD)
    save_screenshot(dialog, "password_store_dialog")
    with qtbot.waitSignal(page.passwords.store_changed):
        dialog.accept()
    assert not page.passwords.button.isVisible()


@pytest.mark.parametrize("way", ["keyring", "store", "session"])
def test_mail_and_calendar_are_set_up_in_the_window(
    qtbot: QtBot,
    request: pytest.FixtureRequest,
    way: str,
    hearth_home: Path,
    mail: MailConnector,  # noqa: F811
    calendar: CalendarConnector,  # noqa: F811
    dovecot: DovecotServer,  # noqa: F811
    smtp_server: SmtpServer,  # noqa: F811
    radicale: RadicaleServer,  # noqa: F811
) -> None:
    keyring = request.getfixturevalue("secure_keyring") if way == "keyring" else None
    context = request.getfixturevalue("context")
    dovecot.append("INBOX", message("Quarterly report"))
    server_calendar(radicale, "Work")
    page = open_page(qtbot, context)
    if way == "store":
        make_store(qtbot, page)

    mail_panel = page.show_connector("mail")
    enter_test_servers(mail_panel, dovecot, smtp_server, mail_server.PASSWORD)
    mail_said = save(qtbot, mail_panel)
    calendar_panel = page.show_connector("calendar")
    enter_account(calendar_panel, radicale)
    calendar_said = save(qtbot, calendar_panel)
    save_screenshot(page, f"accounts_passwords_{way}")

    # Whatever the place, both accounts work in this session.
    assert [m.subject for m in run(mail, "mail.list").messages] == ["Quarterly report"]
    calendar.library.refresh()
    assert [c.name for c in calendar.library.store.calendars() if c.source == "caldav"] == ["Work"]

    if way == "session":
        said = (
            "Saved. The password is used for this session only: this computer has no keyring. "
            "To keep it, make a password store (top of the page)."
        )
        assert (mail_said, calendar_said) == (said, said)
        assert not context.settings.secrets.vault.exists
    else:
        assert (mail_said, calendar_said) == ("Saved.", "Saved.")
    if keyring is not None:
        assert keyring.get("mail.password") == mail_server.PASSWORD
        assert keyring.get("calendar.password") == calendar_server.PASSWORD
    if way == "store":
        next_start = Secrets(hearth_home / "data" / "secrets.hearth", system=None)
        next_start.unlock(STORE_PASSWORD)
        assert next_start.get("mail.password") == mail_server.PASSWORD
        assert next_start.get("calendar.password") == calendar_server.PASSWORD
    for path in [p for p in hearth_home.rglob("*") if p.is_file()]:
        data = path.read_bytes()
        assert mail_server.PASSWORD.encode() not in data, path
        assert calendar_server.PASSWORD.encode() not in data, path


def test_at_start_a_locked_store_is_unlocked_in_hearths_own_dialog(
    qtbot: QtBot, context: UiContext, hearth_home: Path
) -> None:
    made = Secrets(hearth_home / "data" / "secrets.hearth", system=None)
    made.create_store(STORE_PASSWORD)
    made.set("mail.password", "kept")
    context.settings.save("mail", MailSettings(address="ann@example.org"))  # no secret: no unlock
    secrets = context.settings.secrets
    assert not secrets.vault.unlocked
    page = open_page(qtbot, context)
    assert page.passwords.button.text() == UNLOCK
    assert page.passwords.text.text().endswith("(locked).")
    # The form cannot read the password, and says why instead of failing.
    panel = page.show_connector("mail")
    assert panel.status.text().startswith("The password cannot be read: Hearth's password store")

    dialog = ask_to_unlock(secrets, page)
    assert isinstance(dialog, PasswordStoreDialog) and dialog.isVisible()
    assert not dialog.making
    dialog.password.setText("wrong password")
    dialog.accept()
    assert dialog.isVisible()
    assert dialog.problem.text().startswith("That is not the password of Hearth's password store")
    dialog.password.setText(STORE_PASSWORD)
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert secrets.get("mail.password") == "kept"
    assert ask_to_unlock(secrets, page) is None  # unlocked: nothing to ask


def test_a_saved_account_syncs_at_once_not_at_the_next_interval(
    qtbot: QtBot,
    context: UiContext,
    calendar: CalendarConnector,  # noqa: F811
    radicale: RadicaleServer,  # noqa: F811
) -> None:
    server_calendar(radicale, "Work")
    calendar.library.start()  # as the window does: a sync now, the next in 15 minutes
    page = open_page(qtbot, context)
    panel = page.show_connector("calendar")
    enter_account(panel, radicale)
    save(qtbot, panel)
    qtbot.waitUntil(
        lambda: "Work" in [c.name for c in calendar.library.store.calendars()], timeout=15_000
    )
