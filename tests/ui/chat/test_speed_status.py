"""The model chip says so when a reply was far slower than this computer's usual speed."""

from __future__ import annotations

from hearth.models.speed_history import SpeedHistory
from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Harness
from tests.ui.conftest import save_screenshot

LONG = " ".join(f"word{n}" for n in range(60))


def test_a_normal_reply_shows_its_speed_plainly(harness: Harness, script: list[Reply]) -> None:
    script.append(Reply(text=LONG))
    harness.type_and_send("Say sixty words.")
    harness.wait_for_turn_end()
    status = harness.chat.status
    assert "tok/s" in status.full_text()
    assert "busy" not in status.full_text() and "slower" not in status.full_text()
    assert status.styleSheet() == ""


def test_a_reply_far_below_the_usual_speed_says_why(harness: Harness, script: list[Reply]) -> None:
    model = harness.assistant.model
    assert model is not None
    # This machine once wrote a billion tokens a second with this model: anything now is slow.
    SpeedHistory().check(model.info, tokens=10**9, seconds=1.0, others_cores=0.0)
    script.append(Reply(text=LONG))
    harness.type_and_send("Say sixty words.")
    harness.wait_for_turn_end()
    status = harness.chat.status
    shown = status.full_text()
    assert "tok/s (computer busy)" in shown or "tok/s (slower than usual)" in shown
    assert "usually 1000000000" in status.toolTip()
    assert "color:" in status.styleSheet()
    save_screenshot(harness.window, "chat_speed_slower_than_usual")
