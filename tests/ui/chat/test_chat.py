"""Streaming replies in the main window: thinking, answers, Stop, failures, no model."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from PySide6.QtCore import Qt

from hearth.errors import EngineError
from hearth.generation import EngineEvent, GenerationSettings, ModelInfo
from hearth.messages import CancelToken, Message, ToolSpec
from hearth.ui.chat.controller import NO_MODEL
from hearth.ui.chat.entries import AnswerEntry, NoticeEntry, ReasoningEntry, UserEntry
from tests.app.agent.scripted import Reply
from tests.ui.chat.kit import Desk, Harness, PausingModel, make_assistant, open_window

REASONING = "The sky looks blue because air scatters short wavelengths of light more."
ANSWER = "Because of Rayleigh scattering: blue light bounces around the sky the most."


@pytest.fixture
def pausing() -> PausingModel:
    return PausingModel(REASONING, ANSWER)


@pytest.fixture
def paused(qtbot: Any, desk: Desk, pausing: PausingModel) -> Iterator[Harness]:
    assistant = make_assistant(pausing, desk)
    try:
        yield from open_window(qtbot, assistant, desk)
    finally:
        assistant.close()


def entries_of(harness: Harness, kind: type) -> list[Any]:
    return [e for e in harness.controller.transcript.entries if isinstance(e, kind)]


def test_a_reply_streams_into_the_transcript_with_its_thinking_apart(
    harness: Harness, script: list[Reply]
) -> None:
    script.append(Reply(text="Paris is the capital of France.", reasoning="Easy: Paris."))
    harness.type_and_send("What is the capital of France?")
    assert harness.chat.composer.text() == ""  # the composer empties once the message is sent
    harness.wait_for_turn_end()

    assert harness.kinds() == ["UserEntry", "ReasoningEntry", "AnswerEntry"]
    user, thinking, answer = harness.controller.transcript.entries
    assert isinstance(user, UserEntry) and user.text == "What is the capital of France?"
    assert isinstance(thinking, ReasoningEntry) and thinking.text.strip() == "Easy: Paris."
    assert (
        isinstance(answer, AnswerEntry) and answer.text.strip() == "Paris is the capital of France."
    )
    assert "Paris." not in answer.text.replace("Paris is", "")  # no thinking in the answer
    assert thinking.collapsed and not answer.live


def test_thinking_streams_open_then_folds_away_when_the_answer_starts(
    paused: Harness, pausing: PausingModel, qtbot: Any
) -> None:
    paused.type_and_send("Why is the sky blue?")
    qtbot.waitUntil(lambda: any(REASONING in e.text for e in entries_of(paused, ReasoningEntry)))
    (thinking,) = entries_of(paused, ReasoningEntry)
    assert thinking.live and not thinking.collapsed
    view, row = paused.chat.view, paused.controller.transcript.index_of(thinking)
    qtbot.waitUntil(lambda: view.visualRect(row).height() > 2 * view.fontMetrics().height())
    open_height = view.visualRect(row).height()
    assert entries_of(paused, AnswerEntry) == []

    pausing.resume.set()
    paused.wait_for_turn_end()

    assert thinking.collapsed and not thinking.live
    (answer,) = entries_of(paused, AnswerEntry)
    assert answer.text.strip() == ANSWER and REASONING not in answer.text
    qtbot.waitUntil(lambda: view.visualRect(row).height() < open_height)


def test_esc_stops_a_reply_while_it_is_being_generated(paused: Harness, qtbot: Any) -> None:
    composer = paused.chat.composer
    paused.type_and_send("Why is the sky blue?")
    qtbot.waitUntil(lambda: bool(entries_of(paused, ReasoningEntry)))
    assert paused.controller.busy
    assert composer.stop.isEnabled() and not composer.send.isEnabled()

    qtbot.keyClick(composer.editor, Qt.Key.Key_Escape)
    paused.wait_for_turn_end()

    assert entries_of(paused, AnswerEntry) == []
    assert entries_of(paused, NoticeEntry)[-1].text == "Stopped."
    assert not composer.stop.isEnabled()
    composer.set_text("Try again")
    assert composer.send.isEnabled()


def test_the_stop_button_stops_a_reply_too(paused: Harness, qtbot: Any) -> None:
    paused.type_and_send("Why is the sky blue?")
    qtbot.waitUntil(lambda: bool(entries_of(paused, ReasoningEntry)))
    qtbot.mouseClick(paused.chat.composer.stop, Qt.MouseButton.LeftButton)
    paused.wait_for_turn_end()
    assert entries_of(paused, NoticeEntry)[-1].text == "Stopped."


class BrokenModel:
    """A model whose engine fails mid-reply, as an out-of-memory llama.cpp would."""

    info = ModelInfo("broken", "tests", "none", "Q4_K_M", 4096, "hermes-json")

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        raise EngineError("llama.cpp ran out of memory; close other programs and try again")
        yield  # a generator, like every model's stream

    def close(self) -> None:
        pass


def test_a_failed_reply_is_shown_with_what_to_do(qtbot: Any, desk: Desk) -> None:
    assistant = make_assistant(BrokenModel(), desk)
    for harness in open_window(qtbot, assistant, desk):
        with qtbot.waitSignal(harness.window.context.errors.error_shown) as shown:
            harness.type_and_send("Hello?")
        harness.wait_for_turn_end()
        assert shown.args == [
            "finish the reply",
            "llama.cpp ran out of memory; close other programs and try again",
        ]
        notice = entries_of(harness, NoticeEntry)[-1]
        assert notice.tone == "error" and "ran out of memory" in notice.text
    assistant.close()


def test_without_a_model_the_chat_says_where_to_get_one(qtbot: Any, desk: Desk) -> None:
    assistant = make_assistant(None, desk)
    for harness in open_window(qtbot, assistant, desk):
        harness.type_and_send("Hello?")
        assert not harness.controller.busy
        assert harness.kinds() == ["NoticeEntry"]
        assert entries_of(harness, NoticeEntry)[0].text == NO_MODEL
        assert harness.chat.composer.text() == "Hello?"  # nothing typed is lost
        assert harness.chat.status.full_text() == "No model loaded"
    assistant.close()
