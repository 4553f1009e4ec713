"""Screenshots of the chat as users see it, saved for review (build/screenshots)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from hearth.ui import theme
from hearth.ui.chat.entries import ReasoningEntry
from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot

ANSWER = (
    "Pack for **cool, changeable weather**. Lisbon in March is usually 12–19 °C:\n\n"
    "- a light waterproof jacket\n"
    "- layers you can take off by midday\n"
    "- comfortable shoes for the hills\n\n"
    "Showers pass quickly, so an umbrella is optional."
)
THINKING = (
    "The user is going to Lisbon in March. Typical highs are around 18 °C and lows near "
    "11 °C, with some rain. I should suggest layers and rain protection, briefly."
)


def show_conversation(harness: Harness, script: list[Reply]) -> None:
    script += [
        Reply(text=ANSWER, reasoning=THINKING),
        Reply(
            reasoning="They want a reminder saved as a note.",
            calls=[("notes_add", {"title": "Lisbon", "text": "Pack a rain jacket and layers"})],
        ),
    ]
    harness.type_and_send("I'm going to Lisbon in March. What should I pack?")
    harness.wait_for_turn_end()
    thinking = harness.controller.transcript.entry(1)
    assert isinstance(thinking, ReasoningEntry)
    harness.controller.transcript.set_collapsed(1, False)


def test_screenshots_of_a_conversation_and_of_a_pending_card(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    show_conversation(harness, script)
    qtbot.wait(100)
    save_screenshot(harness.window, "main_window")

    card = harness.send_and_wait_for_card("Note that down for me: rain jacket and layers")
    qtbot.wait(100)
    assert card.buttons.isVisible()
    save_screenshot(harness.window, "tool_card_pending")

    app = QApplication.instance()
    theme.apply_theme(app, theme.DARK)
    try:
        harness.window.refresh_icons()
        qtbot.wait(100)
        save_screenshot(harness.window, "tool_card_pending_dark")
    finally:
        theme.apply_theme(app, theme.LIGHT)
        harness.controller.stop()
        harness.wait_for_turn_end()
