"""The System section of the Accounts page: a status strip from the real system connector.

Brightness goes through a real sysfs-like backlight folder and Wi-Fi through nmcli answering
from recordings (NetworkManager cannot run here); volume, mute and do-not-disturb use this
machine's real commands, which here find no sound server or GNOME session and say so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from hearth.assistant import Assistant
from hearth.connectors.system.battery import PsutilBattery
from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.connector import SystemConnector
from hearth.connectors.system.linux_audio import audio_controls
from hearth.connectors.system.linux_backlight import SysfsBrightness
from hearth.connectors.system.linux_desktop import GsettingsDnd
from hearth.connectors.system.linux_network import NmcliWifi
from hearth.connectors.system.machine import Machine
from hearth.ui.context import UiContext
from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.connector_status import ConnectorStatusPanel
from tests.connectors.mail.test_wifi_recovery import Plugin
from tests.connectors.system.desktop_fixtures import make_backlight
from tests.connectors.system.recorded import RecordedRunner, said
from tests.ui.conftest import save_screenshot

WIFI_LIST = ("nmcli", "-t", "-f", "ACTIVE,SSID", "device", "wifi", "list", "--rescan", "no")


@pytest.fixture
def backlight(tmp_path: Path) -> Path:
    root = tmp_path / "backlight"
    make_backlight(root, "intel_backlight", 96000, 240000)
    return root


@pytest.fixture
def nmcli() -> RecordedRunner:
    # Formats from nmcli(1): terse output, ':' inside a value escaped with '\'.
    return RecordedRunner(
        {
            ("nmcli", "-t", "-f", "RUNNING", "general"): said("running\n"),
            ("nmcli", "-t", "-f", "WIFI", "radio"): said("enabled\n"),
            WIFI_LIST: said("no:Neighbours\nyes:Home\\: upstairs\n"),
        },
        programs=["nmcli"],
    )


@pytest.fixture
def assistant(backlight: Path, nmcli: RecordedRunner) -> Iterator[Assistant]:
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
    core = Assistant.open(plugins=[Plugin(SystemConnector(machine))], entry_points=False)
    yield core
    core.close()


@pytest.fixture
def page(qtbot: QtBot, context: UiContext) -> AccountsPage:
    widget = AccountsPage(context)
    qtbot.addWidget(widget)
    widget.resize(960, 640)
    with qtbot.waitSignal(widget.status_panels["system"].strip.items_did_show, timeout=20_000):
        widget.show()
    return widget


@pytest.fixture
def panel(page: AccountsPage) -> ConnectorStatusPanel:
    return page.show_status("system")


def rows(panel: ConnectorStatusPanel) -> dict[str, tuple[str, str, bool]]:
    return {
        label.text(): (value.text(), detail.text(), value.isEnabled())
        for label, value, detail in panel.strip.rows
    }


def test_the_strip_shows_each_setting_its_backend_or_why_not(
    qtbot: QtBot, panel: ConnectorStatusPanel
) -> None:
    shown = rows(panel)
    assert list(shown) == ["Wi-Fi", "Volume", "Mute", "Brightness", "Do not disturb", "Battery"]
    assert shown["Wi-Fi"] == ("on, Home: upstairs", "via nmcli", True)
    assert shown["Brightness"] == ("40%", "via sysfs", True)
    for label in ("Volume", "Mute", "Do not disturb"):
        value, detail, available = shown[label]
        # Whatever this machine offers, a row is a value with its backend or a reason.
        assert detail.startswith("via ") if available else value == "not supported here"
        assert detail
    save_screenshot(panel.window(), "accounts-system")


def test_refresh_reads_the_settings_again(
    qtbot: QtBot, panel: ConnectorStatusPanel, backlight: Path
) -> None:
    (backlight / "intel_backlight" / "brightness").write_text("180000\n")
    with qtbot.waitSignal(panel.strip.items_did_show, timeout=20_000):
        panel.refresh_button.click()
    assert rows(panel)["Brightness"][0] == "75%"
