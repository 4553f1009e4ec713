"""The chat at narrow widths: a consent card, the reply under it and the key hint all fit, from
the documented minimum width up, in light and dark."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from hearth.ui import theme
from hearth.ui.chat.card import ToolCard
from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot
from tests.ui.geometry import cut_labels, in_window, past_right_edge

MINIMUM_WIDTH = 640  # as docs/user-guide.md says
GUIDE = Path(__file__).parents[3] / "docs" / "user-guide.md"
NOTE = {
    "title": "Lisbon packing list for the week in March",
    "text": "Pack a light waterproof jacket, layers to take off by midday, comfortable shoes "
    "for the hills and an umbrella that folds small enough for the day bag.",
}
REPLY = (
    "While you decide, here is the rest: Lisbon in March is usually 12–19 °C, so bring "
    "**layers**, and showers pass quickly."
)


def show_card_and_reply(harness: Harness, script: list[Reply]) -> ToolCard:
    """A waiting consent card with a reply row under it, as a later turn leaves them."""
    script += [Reply(calls=[("notes_add", NOTE)])]
    card = harness.send_and_wait_for_card("Note down what to pack for Lisbon in March")
    harness.controller.transcript.add_answer(REPLY)
    return card


def settle(harness: Harness, width: int) -> None:
    window = harness.window
    window.resize(width, 760)
    harness.qtbot.waitUntil(lambda: window.width() == max(width, window.minimumWidth()))
    harness.qtbot.wait(150)  # the view lays its rows out after the resize
    harness.chat.view.scrollToBottom()
    QApplication.processEvents()


def assert_chat_fits(harness: Harness, card: ToolCard) -> None:
    chat = harness.chat
    width = harness.window.width()
    assert not (found := past_right_edge(harness.window)), (width, found)
    assert not (found := cut_labels(chat)), (width, found)
    view = chat.view
    viewport = view.viewport()
    assert card.geometry().right() < viewport.width()
    reply = view.visualRect(view.transcript().index(view.transcript().rowCount() - 1))
    assert card.geometry().bottom() < reply.top(), (card.geometry(), reply)
    # The card is as tall as its contents need at the width it was given.
    assert card.height() >= card.heightForWidth(card.width())
    for button in (card.allow_once, card.allow_for, card.edit, card.deny):
        assert button.width() >= button.sizeHint().width(), button.text()
        assert in_window(button).right() <= in_window(card).right()


def test_a_consent_card_and_the_hint_fit_at_the_minimum_width(
    harness: Harness, script: list[Reply]
) -> None:
    card = show_card_and_reply(harness, script)
    settle(harness, MINIMUM_WIDTH)
    assert_chat_fits(harness, card)
    hint = harness.chat.hint
    assert hint.height() >= hint.heightForWidth(hint.width())
    assert harness.window.width() == MINIMUM_WIDTH
    assert harness.window.minimumWidth() == MINIMUM_WIDTH
    harness.controller.stop()
    harness.wait_for_turn_end()


def test_with_the_side_bar_unfolded_the_card_wraps_its_buttons_whole(
    harness: Harness, script: list[Reply], qtbot: QtBot
) -> None:
    card = show_card_and_reply(harness, script)
    settle(harness, MINIMUM_WIDTH)
    qtbot.mouseClick(harness.window.sidebar.toggle, Qt.MouseButton.LeftButton)
    assert harness.window.conversations.isVisible()
    settle(harness, MINIMUM_WIDTH)
    save_screenshot(harness.window, "narrow-chat-card-unfolded")
    assert_chat_fits(harness, card)
    rows = {button.y() for button in (card.allow_once, card.deny)}
    assert len(rows) == 2  # Deny went to a line of its own, at the right
    assert in_window(card.deny).right() >= in_window(card).right() - 20
    harness.controller.stop()
    harness.wait_for_turn_end()


def test_the_guide_documents_the_minimum_width() -> None:
    assert f"{MINIMUM_WIDTH} px" in GUIDE.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["light", "dark"])
def test_screenshots_of_a_consent_card_at_three_widths(
    harness: Harness, script: list[Reply], qtbot: QtBot, name: str
) -> None:
    card = show_card_and_reply(harness, script)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, theme.DARK if name == "dark" else theme.LIGHT)
    try:
        harness.window.refresh_icons()
        for width in (1400, 1000, MINIMUM_WIDTH):
            settle(harness, width)
            save_screenshot(harness.window, f"narrow-chat-card-{width}-{name}")
            assert_chat_fits(harness, card)
    finally:
        theme.apply_theme(app, theme.LIGHT)
        harness.controller.stop()
        harness.wait_for_turn_end()
