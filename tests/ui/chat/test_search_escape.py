"""Esc belongs to the box it is pressed in: in the conversation search it clears the search,
and a reply running meanwhile goes on."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from hearth.ui.chat.entries import AnswerEntry, NoticeEntry, ReasoningEntry
from tests.ui.chat.kit import Harness, PausingModel
from tests.ui.chat.test_chat import entries_of, paused  # noqa: F401 (fixture)

ANSWER = "Because air scatters blue light the most."


@pytest.fixture
def pausing() -> PausingModel:
    return PausingModel("Rayleigh scattering.", ANSWER)


def test_esc_in_the_search_box_clears_it_and_the_reply_goes_on(
    paused: Harness,  # noqa: F811
    pausing: PausingModel,
    qtbot: Any,
) -> None:
    paused.type_and_send("Why is the sky blue?")
    qtbot.waitUntil(lambda: bool(entries_of(paused, ReasoningEntry)))
    assert paused.controller.busy
    search = paused.window.conversations.search
    qtbot.keyClick(paused.window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert search.hasFocus()
    qtbot.keyClicks(search, "sky")

    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert search.text() == ""
    qtbot.wait(300)  # a stopped turn would have ended by now
    assert paused.controller.busy
    assert entries_of(paused, NoticeEntry) == []

    qtbot.keyClick(search, Qt.Key.Key_Escape)  # an empty box keeps Esc to itself too
    qtbot.wait(300)
    assert paused.controller.busy

    pausing.resume.set()
    paused.wait_for_turn_end()
    (answer,) = entries_of(paused, AnswerEntry)
    assert answer.text.strip() == ANSWER


def test_esc_in_the_composer_still_stops_the_reply(
    paused: Harness,  # noqa: F811
    qtbot: Any,
) -> None:
    paused.type_and_send("Why is the sky blue?")
    qtbot.waitUntil(lambda: bool(entries_of(paused, ReasoningEntry)))
    qtbot.keyClick(paused.window.conversations.search, Qt.Key.Key_Escape)
    qtbot.keyClick(paused.chat.composer.editor, Qt.Key.Key_Escape)
    paused.wait_for_turn_end()
    assert entries_of(paused, NoticeEntry)[-1].text == "Stopped."
