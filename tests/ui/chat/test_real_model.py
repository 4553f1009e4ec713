"""The whole desktop chat with the real SmolLM2 model: think, answer, ask, approve, run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from hearth.agent import AgentConfig, Deny
from hearth.engine.llama import LlamaCppModel
from hearth.engine.threads import ThreadPolicy
from hearth.generation import GenerationSettings
from hearth.ruling import Decider
from hearth.ui.chat.entries import AnswerEntry, CardState, ReasoningEntry
from tests.app.agent.kit import fixed_clock
from tests.ui.chat.kit import Desk, Harness, make_assistant, open_window
from tests.ui.conftest import save_screenshot

pytestmark = pytest.mark.model

GENERATION_PROMPT = "{{ '<|im_start|>assistant\n' }}"
OPEN_THINKING = "{% if enable_thinking %}{{ '<think>\n' }}{% endif %}"
TURN_TIMEOUT_MS = 120_000
CONFIG = AgentConfig(
    max_steps=2,
    settings=GenerationSettings(max_tokens=48, reasoning_budget=8, seed=11, temperature=0.2),
    clock=fixed_clock,
)


@pytest.fixture(scope="module")
def thinking_smol(smol: LlamaCppModel) -> Iterator[LlamaCppModel]:
    """SmolLM2 with its own chat template opening a <think> block, so it reasons first.

    SmolLM2's template has no thinking; Hearth's engine closes the block after the budget.
    """
    source = smol.template.source
    assert GENERATION_PROMPT in source, "SmolLM2's template changed; update GENERATION_PROMPT"
    template = source.replace(GENERATION_PROMPT, GENERATION_PROMPT + OPEN_THINKING)
    # Fixed threads: a tuned count follows the machine's load, and with it llama.cpp's sums
    # and so the seeded reply; this test needs the same reply (a tool call) every run. One,
    # because the suite runs more test processes than there are cores.
    threads = ThreadPolicy.fixed(1)
    model = LlamaCppModel(smol.path, n_ctx=4096, chat_template=template, threads=threads)
    yield model
    model.close()


@pytest.fixture
def real(qtbot: Any, desk: Desk, thinking_smol: LlamaCppModel) -> Iterator[Harness]:
    assistant = make_assistant(thinking_smol, desk)
    try:
        yield from open_window(qtbot, assistant, desk, config=CONFIG)
    finally:
        assistant.db.close()  # the module's model stays open for the next test


def wait_for_turn_end(harness: Harness, qtbot: Any) -> None:
    with qtbot.waitSignal(harness.controller.turn_did_finish, timeout=TURN_TIMEOUT_MS):
        pass


def test_type_see_thinking_and_answer_then_approve_a_card_and_see_its_result(
    real: Harness, qtbot: Any
) -> None:
    with qtbot.waitSignal(real.controller.turn_did_finish, timeout=TURN_TIMEOUT_MS):
        real.type_and_send("Say hello to me in one short sentence.")
    thinking = [e for e in real.controller.transcript.entries if isinstance(e, ReasoningEntry)]
    answers = [e for e in real.controller.transcript.entries if isinstance(e, AnswerEntry)]
    assert thinking and thinking[0].text.strip() and thinking[0].collapsed
    assert answers and answers[0].text.strip()
    # The model's own record keeps the two apart exactly as the transcript shows them.
    stored = real.assistant.conversations.messages(real.controller.conversation_id)[-1]
    assert stored.reasoning == thinking[0].text.strip()
    assert stored.content == answers[0].text.strip()
    status = real.chat.status
    qtbot.waitUntil(lambda: "tok/s" in status.full_text() and "Q4_1" in status.full_text())
    save_screenshot(real.window, "real_model_answer")

    qtbot.keyClick(real.window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert real.chat.composer.use_tool.isChecked()
    with qtbot.waitSignal(real.controller.consent_did_ask, timeout=TURN_TIMEOUT_MS) as asked:
        real.type_and_send("Save a note titled milk saying buy milk.", use_tool=True)
    call_id = asked.args[0]
    qtbot.waitUntil(lambda: real.chat.view.card(call_id) is not None)
    card = real.card(call_id)
    assert card.entry is not None and card.entry.tool == "notes_add"
    assert card.buttons.isVisible() and real.desk.notes == {}
    save_screenshot(real.window, "real_model_card")

    # Later proposals in the same turn are refused, so the turn ends after the one approval.
    real.controller.consent_did_ask.connect(lambda later: real.controller.answer(later, Deny()))
    with qtbot.waitSignal(real.controller.turn_did_finish, timeout=TURN_TIMEOUT_MS):
        qtbot.mouseClick(card.allow_once, Qt.MouseButton.LeftButton)

    entry = card.entry
    assert entry.state is CardState.DONE and entry.outcome == "executed"
    assert "saved the note" in card.result.text()
    assert list(real.desk.notes) == [entry.arguments["title"]]
    rows = [row for row in real.assistant.activity() if row.call_id == call_id]
    assert [(r.decision, r.ruling.decider, r.outcome) for r in rows] == [
        ("allow", Decider.USER, "proposed"),
        ("allow", Decider.USER, "executed"),
    ]
    save_screenshot(real.window, "real_model_result")
