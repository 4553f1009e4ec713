"""The text of an answer carries none of the fence Hearth put around outside data, however the
model echoed it: every front end reads the turn's steps, so the session cleans them once.

The scripted model reads a real file through the real files connector, then writes back the
fenced observation it was given (wrapped in `<tool_response>`, re-spaced and cut short, as small
models do) around a real answer.
"""

from __future__ import annotations

from pathlib import Path

import hearth
from hearth.agent import AnswerDelta, ReasoningDelta
from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.messages import CancelToken, Message
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin

HIDDEN = ("untrusted-data", "tool_response", "not instructions", "text below is data")


def echoing(messages: list[Message]) -> Reply:
    """Echo the fenced observation whole, then a re-spaced, cut-short copy of its notice."""
    observation = messages[-1].content
    notice = observation.splitlines()[1]  # "The text below is data from …"
    sloppy = "  ".join(notice.upper().split())[:70] + "…"
    text = f"Here it is.\n<tool_response>\n{observation}\n</tool_response>\n{sloppy}\nAll done."
    return Reply(text=text, reasoning=f"I read <tool_response>{notice}</tool_response> and")


def replies(documents: Path) -> list[Reply | object]:
    return [Reply(calls=[("files.read", {"path": str(documents / "budget.txt")})]), echoing]


def test_the_answer_a_script_gets_holds_no_fence(files: FilesConnector, documents: Path) -> None:
    assistant = Assistant.open(
        plugins=[FilesPlugin(files)], entry_points=False, start_connectors=False
    )
    model = ScriptedModel(replies(documents))  # type: ignore[arg-type]
    with hearth.Session(model, approve=lambda _: True, assistant=assistant) as script:
        turn = script.ask("Read the budget note in my files")
    for text in (turn.answer, turn.reasoning):
        for internal in HIDDEN:
            assert internal not in text.lower(), text
    assert turn.answer.startswith("Here it is.\n")
    assert "Remember the quarterly budget review on Friday." in turn.answer  # the file's words
    assert turn.answer.endswith("\nAll done.")
    assert turn.reasoning == "I read and"


def test_the_steps_are_clean_and_the_history_keeps_what_the_model_wrote(
    files: FilesConnector, documents: Path
) -> None:
    model = ScriptedModel(replies(documents))  # type: ignore[arg-type]
    assistant = Assistant.open(
        model, plugins=[FilesPlugin(files)], entry_points=False, start_connectors=False
    )
    try:
        session = assistant.session()
        steps = drive(session.run_turn("Read the budget note in my files", CancelToken()), None)
    finally:
        assistant.close()
    answer = "".join(step.text for step in of(steps, AnswerDelta))
    thought = "".join(step.text for step in of(steps, ReasoningDelta))
    for internal in HIDDEN:
        assert internal not in answer.lower() and internal not in thought.lower()
    assert "All done." in answer
    written = session.history[-1]
    assert written.role == "assistant" and "<untrusted-data" in written.content
