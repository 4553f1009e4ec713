"""The rule of two on a card: a rule that would allow the call is named as set aside, with why,
instead of the card claiming there is no rule."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot

LEFT = Qt.MouseButton.LeftButton


def test_a_card_the_rule_of_two_asks_names_the_rule_that_would_have_allowed_it(
    harness: Harness, script: list[Reply], qtbot: Any
) -> None:
    volume = harness.assistant.tools.get("volume_set")
    assert volume is not None
    harness.assistant.gate.grant(
        volume, {"setting": "volume", "level": 30}, "always", scope="volume"
    )
    script += [
        Reply(calls=[("volume_set", {"setting": "volume", "level": 30})]),
        Reply(calls=[("volume_set", {"setting": "volume", "level": 50})]),
        Reply(text="Left as it was."),
    ]
    # The first call runs by the rule; its reply is untrusted content, so the second asks.
    card = harness.send_and_wait_for_card("Set the volume to 30, then 50")
    assert harness.desk.volume == 30
    why = card.why.text()
    assert "Rule: none yet" not in why
    assert why == (
        "Your rule would allow this (allow volume_set on volume always), but this conversation "
        "has read untrusted content (reply from volume_set of volume), so every change to system "
        "settings needs your approval, whatever your rules say."
    )
    assert why.count("untrusted content") == 1 and "Why Hearth asks" not in why
    assert card.allow_once.isVisible()
    save_screenshot(harness.window, "rule_of_two_card")
    qtbot.mouseClick(card.deny, LEFT)
    harness.wait_for_turn_end()
    assert harness.desk.volume == 30
