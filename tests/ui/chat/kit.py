"""Real tools, a real core and the real main window for chat tests; only models are scripted."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt

from hearth import hookimpl, tool
from hearth.assistant import Assistant
from hearth.generation import (
    AnswerDelta,
    ChatModel,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    ModelInfo,
    ReasoningDelta,
)
from hearth.messages import CancelToken, Message, ToolSpec
from hearth.tools import Tool
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.controller import ChatController
from hearth.ui.chat.entries import ToolCardEntry
from hearth.ui.chat.panel import ChatPanel
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from tests.app.agent.kit import Machine, build_tools

TURN_TIMEOUT_MS = 10_000


@dataclass
class Desk(Machine):
    """The agent tests' pretend laptop, online, plus notes that can be undone and read back."""

    wifi: bool = True


def desk_tools(desk: Desk) -> list[Tool]:
    def remove_note(arguments: Mapping[str, Any], _result: object) -> str:
        desk.notes.pop(arguments["title"], None)
        return f"removed the note {arguments['title']!r}"

    @tool(effect="write", keywords=("note", "notes", "save", "remember"), undo=remove_note)
    def notes_add(title: str, text: str) -> str:
        """Save a note.

        Args:
            title: A short title.
            text: The note's text.
        """
        desk.notes[title] = text
        return f"saved the note {title!r}"

    @tool(effect="read", keywords=("note", "notes", "read"))
    def notes_read(title: str) -> str:
        """Read a saved note.

        Args:
            title: The note's title.
        """
        return desk.notes.get(title, f"there is no note called {title!r}")

    shared = [item for item in build_tools(desk) if item.name in ("volume_set", "mail_send")]
    return [notes_add, notes_read, *shared]


class DeskPlugin:
    """A plugin object, registered like any third-party plugin."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        for item in desk_tools(self.desk):
            register(item)


class PausingModel:
    """Thinks, then waits for `resume` before it answers; Stop ends the wait (scripted model)."""

    def __init__(self, reasoning: str, answer: str) -> None:
        self.reasoning = reasoning
        self.answer = answer
        self.resume = threading.Event()
        self.info = ModelInfo("pausing", "tests", "none", "Q8_0", 4096, "hermes-json")

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        cancel = cancel or CancelToken()
        for word in self.reasoning.split():
            yield ReasoningDelta(word + " ")
        while not self.resume.wait(0.01):
            if cancel.cancelled:
                stopped = Message.assistant(reasoning=self.reasoning)
                yield GenerationDone(stopped, "cancelled", GenerationStats())
                return
        for word in self.answer.split():
            yield AnswerDelta(word + " ")
        message = Message.assistant(self.answer, reasoning=self.reasoning)
        yield GenerationDone(message, "end", GenerationStats(prompt_tokens=40))

    def close(self) -> None:
        self.resume.set()


def make_assistant(model: ChatModel | None, desk: Desk) -> Assistant:
    return Assistant.open(
        model, plugins=[DeskPlugin(desk)], entry_points=False, start_connectors=False
    )


@dataclass
class Harness:
    window: MainWindow
    assistant: Assistant
    desk: Desk

    qtbot: Any

    @property
    def chat(self) -> ChatPanel:
        return self.window.chat

    @property
    def controller(self) -> ChatController:
        return self.window.controller

    def type_and_send(self, text: str, *, use_tool: bool = False) -> None:
        """Write in the composer and press Enter, as the user does."""
        self.chat.composer.use_tool.setChecked(use_tool)
        self.chat.composer.set_text(text)
        self.qtbot.keyClick(self.chat.composer.editor, Qt.Key.Key_Return)

    def send_and_wait_for_card(self, text: str, *, use_tool: bool = False) -> ToolCard:
        with self.qtbot.waitSignal(
            self.controller.consent_did_ask, timeout=TURN_TIMEOUT_MS
        ) as asked:
            self.type_and_send(text, use_tool=use_tool)
        self.qtbot.waitUntil(lambda: self.chat.view.card(asked.args[0]) is not None)
        return self.card(asked.args[0])

    def wait_for_turn_end(self) -> None:
        if self.controller.busy:
            with self.qtbot.waitSignal(self.controller.busy_did_change, timeout=TURN_TIMEOUT_MS):
                pass
        assert not self.controller.busy

    def card(self, call_id: str) -> ToolCard:
        card = self.chat.view.card(call_id)
        assert card is not None, f"no card for {call_id}"
        return card

    def cards(self) -> list[ToolCardEntry]:
        return [e for e in self.controller.transcript.entries if isinstance(e, ToolCardEntry)]

    def kinds(self) -> list[str]:
        return [type(entry).__name__ for entry in self.controller.transcript.entries]


def open_window(qtbot: Any, assistant: Assistant, desk: Desk, **options: Any) -> Iterator[Harness]:
    """The main window over `assistant`, shown; closed (threads joined) afterwards."""
    context = UiContext(assistant)
    window = MainWindow(context, pages=[], **options)
    qtbot.addWidget(window)
    window.resize(1100, 760)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()  # window shortcuts (Esc, Ctrl+N) only fire in the active window
    qtbot.waitUntil(window.isActiveWindow)
    try:
        yield Harness(window, assistant, desk, qtbot)
    finally:
        window.close()
        context.shutdown()


def shown_card(qtbot: Any, entry: ToolCardEntry) -> ToolCard:
    """A card showing `entry` on its own, as the transcript would draw it."""
    card = ToolCard()
    qtbot.addWidget(card)
    card.show_entry(entry)
    card.show()
    return card
