"""A network's name on the System strip is the network owner's text, not Hearth's: it is shown
as text through `hearth.shown`, never as rich text, and its bidi marks are made visible."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from hearth import shown
from hearth.ui.context import UiContext
from hearth.ui.pages.accounts import AccountsPage
from tests.connectors.system.recorded import RecordedRunner, said
from tests.ui.pages.test_system_status import WIFI_LIST, assistant, backlight  # noqa: F401

SPOOF = "<b>Free</b> Wi\u2011Fi \u202egnp.exe"


@pytest.fixture
def nmcli() -> RecordedRunner:
    return RecordedRunner(
        {
            ("nmcli", "-t", "-f", "RUNNING", "general"): said("running\n"),
            ("nmcli", "-t", "-f", "WIFI", "radio"): said("enabled\n"),
            WIFI_LIST: said(f"yes:{SPOOF}\n"),
        },
        programs=["nmcli"],
    )


def test_a_network_name_is_shown_as_text_with_its_controls_visible(
    qtbot: QtBot, context: UiContext
) -> None:
    page = AccountsPage(context)
    qtbot.addWidget(page)
    strip = page.status_panels["system"].strip
    with qtbot.waitSignal(strip.items_did_show, timeout=20_000):
        page.show()
    [wifi] = [value for label, value, _ in strip.rows if label.text() == "Wi-Fi"]
    assert wifi.textFormat() == Qt.TextFormat.PlainText
    assert wifi.text() == shown(f"on, {SPOOF}")
    assert "\u202e" not in wifi.text()
