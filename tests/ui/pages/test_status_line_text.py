"""A connector's status line may quote a server (mail keeps the server's last error in it): the
Accounts page shows it as text through `hearth.shown`, never as rich text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth import Connector, shown
from hearth.ui.context import UiContext
from hearth.ui.pages.accounts import AccountsPage
from tests.ui.pages.kit import Desk, DeskPlugin
from tests.ui.pages.login_server import ServerSettings

QUOTED = 'IMAP said: <a href="https://evil.example">renew</a> \u202egnp.exe'


class Quoting(Connector):
    name = "quoting"
    title = "Quoting"
    description = "A connector whose status quotes its server."
    settings = ServerSettings

    def status_line(self) -> str | None:
        return QUOTED


@pytest.fixture
def plugin(desk: Desk) -> DeskPlugin:
    return DeskPlugin(desk, extra=(Quoting(),))


def test_a_status_line_is_shown_as_text_with_its_controls_visible(
    qtbot: QtBot, context: UiContext
) -> None:
    page = AccountsPage(context)
    qtbot.addWidget(page)
    panel = page.panels["quoting"]
    with qtbot.waitSignal(panel.status_did_refresh, timeout=10_000):
        page.show()
    assert panel.connector_status.textFormat() == Qt.TextFormat.PlainText
    assert panel.connector_status.text() == shown(QUOTED, lines=True)
    assert "\u202e" not in panel.connector_status.text()
