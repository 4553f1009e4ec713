"""The consent card for a real system change: brightness through a sysfs-like backlight folder.
The card says what changes from what, "Allow for…" offers levels in words, the change is read
back, and Undo puts the old level back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from hearth.assistant import Assistant
from hearth.connectors.system.connector import SystemConnector
from hearth.connectors.system.linux_backlight import SysfsBrightness
from hearth.connectors.system.machine import Machine
from hearth.ui.chat.dialogs import AllowForDialog
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.mail.test_wifi_recovery import Plugin
from tests.connectors.system.desktop_fixtures import make_backlight
from tests.ui.chat.kit import Desk, Harness, open_window
from tests.ui.conftest import save_screenshot

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def backlight(tmp_path: Path) -> Path:
    root = tmp_path / "backlight"
    make_backlight(root, "intel_backlight", 120000, 240000)
    return root


@pytest.fixture
def harness(qtbot: Any, backlight: Path) -> Iterator[Harness]:
    system = SystemConnector(Machine([SysfsBrightness(backlight)]))
    replies = [
        Reply(calls=[("system.set_brightness", {"level": 30})]),
        Reply(text="Dimmed."),
    ]
    assistant = Assistant.open(
        ScriptedModel(replies), plugins=[Plugin(system)], entry_points=False, start_connectors=False
    )
    try:
        yield from open_window(qtbot, assistant, Desk())
    finally:
        assistant.close()


def brightness(backlight: Path) -> str:
    return (backlight / "intel_backlight" / "brightness").read_text().strip()


def test_a_brightness_card_grants_up_to_a_level_and_undoes(
    qtbot: Any, harness: Harness, backlight: Path
) -> None:
    card = harness.send_and_wait_for_card("Dim the screen to 30")
    assert card.entry is not None
    assert card.entry.preview == "Set the brightness to 30% (it is 50% now, using sysfs)"
    save_screenshot(harness.window, "system_card")

    qtbot.mouseClick(card.allow_for, LEFT)
    dialog = harness.window.findChild(AllowForDialog)
    assert isinstance(dialog, AllowForDialog)
    labels = [dialog.scope.itemText(i) for i in range(dialog.scope.count())]
    assert labels == ["brightness at 30 only", "brightness up to 30", "brightness at any level"]
    dialog.scope.setCurrentIndex(1)
    save_screenshot(dialog, "system_allow_for")
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    harness.wait_for_turn_end()
    assert brightness(backlight) == "72000"
    (rule,) = harness.assistant.permissions.rules()
    assert (rule.tool, rule.scope) == ("system.set_brightness", "brightness:0-30")

    qtbot.waitUntil(lambda: card.undo.isVisible(), timeout=10_000)
    qtbot.mouseClick(card.undo, LEFT)
    qtbot.waitUntil(lambda: brightness(backlight) == "120000", timeout=10_000)
