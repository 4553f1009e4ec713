"""A tool-call card: what the model wants to run, why Hearth asks, the user's answer, the result.

Keyboard: the buttons carry mnemonics (Alt+O, Alt+F, Alt+E, Alt+D) and focus lands on Deny, so
Enter or Space on a fresh card refuses; nothing is one keystroke away from "always". Deny also
looks like the default: it is the filled button, the allow buttons are plain.

Every word on the card that can come from outside (names, values, the preview, taint lines, the
result) passes `hearth.shown`, so what the card reads is what the call does.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from hearth import EFFECT_WORDS, AllowOnce, ArgumentProblem, Deny, shown
from hearth.ui import theme
from hearth.ui.chat.card_words import edit_words, result_words, state_words, why
from hearth.ui.chat.countdown import CountdownLabel
from hearth.ui.chat.day_view import DayView
from hearth.ui.chat.dialogs import AllowForDialog, EditArgumentsDialog
from hearth.ui.chat.entries import CardState, ToolCardEntry, UndoState
from hearth.ui.chat.flow import FlowLayout
from hearth.ui.chat.result_view import ResultView

VALUE_CHARS = 300
_MISSING = object()  # an argument a problem names that the call does not have


def shown_value(value: Any) -> str:
    """An argument value as a person reads it, on one line: text escaped as `shown` does it,
    anything else as compact JSON."""
    text = shown(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _label(name: str, text: str = "", *, wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


class ToolCard(QFrame):
    """Shows one `ToolCardEntry`; the buttons announce the user's choice, the owner acts on it."""

    answered = Signal(object)  # an Answer for the ConsentRequest
    undo_requested = Signal()
    layout_did_change = Signal()  # the card may need a different height now

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.setAutoFillBackground(True)
        self.entry: ToolCardEntry | None = None
        self._shown_arguments: tuple[dict[str, Any], tuple[ArgumentProblem, ...]] | None = None
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(self._build_header())
        self.arguments = QWidget()
        self.arguments_grid = QGridLayout(self.arguments)
        self.arguments_grid.setContentsMargins(0, 0, 0, 0)
        self.arguments_grid.setHorizontalSpacing(12)
        self.arguments_grid.setVerticalSpacing(3)
        self.arguments_grid.setColumnStretch(1, 1)
        layout.addWidget(self.arguments)
        self.edit_diff = _label("editDiff")
        layout.addWidget(self.edit_diff)
        self.preview = _label("preview")
        self.taint = _label("taint")
        self.why = _label("why")
        self.day_view = DayView()
        self.day_view.hide()
        layout.addWidget(self.preview)
        layout.addWidget(self.day_view)
        layout.addWidget(self.taint)
        layout.addWidget(self.why)
        layout.addWidget(self._build_buttons())
        self.answer_note = _label("why")
        layout.addWidget(self.answer_note)
        layout.addLayout(self._build_result())

    def _build_header(self) -> FlowLayout:
        row = FlowLayout()  # the state drops under the title when the card is narrow
        row.setSpacing(8)
        self.icon = QLabel()
        self.title = _label("cardTitle", wrap=False)
        self.badge = _label("badge", wrap=False)
        self.state = _label("cardState", wrap=False)
        row.addWidget(self.icon)
        row.addWidget(self.title)
        row.addWidget(self.badge)
        row.addStretch(1)
        row.addWidget(self.state)
        return row

    def _build_buttons(self) -> QWidget:
        self.buttons = QWidget()
        column = QVBoxLayout(self.buttons)
        column.setContentsMargins(0, 4, 0, 0)
        row = FlowLayout()  # the buttons wrap, whole, when the card is narrow
        row.setSpacing(8)
        self.allow_once = QPushButton("Allow &once")
        self.allow_for = QPushButton("Allow &for…")
        self.edit = QPushButton("&Edit arguments…")
        self.deny = QPushButton("&Deny")
        for button in (self.allow_once, self.allow_for, self.edit):
            button.setAutoDefault(False)
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.deny)
        # On a line of its own, so a narrow window leaves the buttons' labels whole.
        self.countdown = CountdownLabel()
        self.countdown.hide()
        column.addLayout(row)
        column.addWidget(self.countdown, 0, Qt.AlignmentFlag.AlignRight)
        self.deny.setProperty("accent", True)  # the safe choice looks like the default it is
        self.deny.setAutoDefault(True)  # Enter on a focused card refuses
        self.deny.setDefault(True)
        self.allow_once.clicked.connect(lambda: self.answered.emit(AllowOnce()))
        self.allow_for.clicked.connect(self._ask_duration)
        self.edit.clicked.connect(self._ask_arguments)
        self.deny.clicked.connect(lambda: self.answered.emit(Deny("the user said no")))
        return self.buttons

    def _build_result(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(8)
        self.result_view = ResultView()
        self.result = self.result_view.summary
        self.undo = QPushButton("&Undo")
        self.undo.setProperty("flat", True)
        self.undo.clicked.connect(self.undo_requested)
        row.addWidget(self.result_view, 1)
        row.addWidget(self.undo, 0, Qt.AlignmentFlag.AlignTop)
        return row

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:
            self.layout_did_change.emit()
        return handled

    def focus_default(self) -> None:
        """Put keyboard focus on the safe choice."""
        if self.buttons.isVisible() and self.deny.isEnabled():
            self.deny.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_entry(self, entry: ToolCardEntry) -> None:
        self.entry = entry
        asking = entry.state is CardState.ASKING
        self.setProperty("asking", asking)
        self.style().unpolish(self)
        self.style().polish(self)
        self._show_header(entry)
        self._show_arguments(entry.arguments, entry.problems)
        self._set(self.edit_diff, edit_words(entry))
        self.countdown.follow(entry.countdown if asking else None)
        warned, plain = entry.preview_lines
        self._set(self.preview, "\n".join(plain))
        self.day_view.show_slots(entry.slots)
        self.day_view.setVisible(bool(entry.slots))
        taint = (f"⚠  {shown(note)}" for note in entry.taint)
        self._set(self.taint, "\n".join([*warned, *taint]))
        self._set(self.why, why(entry) if entry.state is not CardState.DONE else "")
        self.buttons.setVisible(asking)
        # A call to correct cannot be allowed as it stands: only an edit or a denial answers it.
        self.allow_once.setVisible(not entry.problems)
        self.allow_for.setVisible(bool(entry.durations) and not entry.problems)
        answer = shown(entry.answer) if entry.state is not CardState.ASKING else ""
        self._set(self.answer_note, answer)
        self._show_result(entry)
        # Shown and hidden parts only reach the layout on its next event; the view measures
        # the card before that, so the layout must forget its old geometry now.
        self._layout.invalidate()

    def _show_header(self, entry: ToolCardEntry) -> None:
        self.icon.setPixmap(theme.icon("tool", theme.current().muted).pixmap(18, 18))
        self.title.setText(shown(entry.tool))
        self._set(self.badge, EFFECT_WORDS.get(entry.effect, ""))
        self.state.setText(state_words(entry))

    def _show_arguments(
        self, arguments: dict[str, Any], problems: tuple[ArgumentProblem, ...] = ()
    ) -> None:
        """One row per argument; one the user must correct is marked, with what is wrong."""
        if (arguments, problems) == self._shown_arguments:
            return
        self._shown_arguments = (dict(arguments), problems)
        while self.arguments_grid.count():
            item = self.arguments_grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # gone from the card now, deleted on the next event
                widget.deleteLater()
        wrong: dict[str, list[str]] = {}
        for problem in problems:
            wrong.setdefault(problem.argument, []).append(problem.words)
        # An argument the call lacks, or a problem with no one argument, still gets its row.
        rows = [*arguments.items(), *((name, _MISSING) for name in wrong if name not in arguments)]
        row = 0
        for name, value in rows:
            name_label = _label("argName", shown(name), wrap=False)
            self.arguments_grid.addWidget(name_label, row, 0, Qt.AlignmentFlag.AlignTop)
            value_label = _label("argValue", "" if value is _MISSING else shown_value(value))
            value_label.setProperty("problem", name in wrong)
            self.arguments_grid.addWidget(value_label, row, 1)
            row += 1
            for words in wrong.get(name, []):
                self.arguments_grid.addWidget(_label("argProblem", f"⚠  {shown(words)}"), row, 1)
                row += 1
        self.arguments.setVisible(bool(rows))
        self.arguments.updateGeometry()  # the card measures it before the grid's next event

    def _show_result(self, entry: ToolCardEntry) -> None:
        text = ""
        if entry.state is CardState.DONE and entry.outcome:
            text = result_words(entry)
        self.result.setProperty("outcome", entry.outcome)
        self.result.style().unpolish(self.result)
        self.result.style().polish(self.result)
        if entry.undo is UndoState.DONE:
            text += f"\n{shown(entry.undo_note)}"
        done = entry.state is CardState.DONE
        raw = entry.result if done else ""
        self.result_view.show_result(text, entry.summary if done else "", raw)
        self.result_view.setVisible(bool(text))
        self.undo.setVisible(entry.undo in (UndoState.AVAILABLE, UndoState.RUNNING))
        self.undo.setEnabled(entry.undo is UndoState.AVAILABLE)
        self.undo.setText("Undoing…" if entry.undo is UndoState.RUNNING else "&Undo")

    @staticmethod
    def _set(label: QLabel, text: str) -> None:
        label.setText(text)
        label.setVisible(bool(text))

    def _ask_duration(self) -> None:
        if self.entry is None:
            return
        entry = self.entry
        dialog = AllowForDialog(
            entry.tool, entry.scopes, entry.durations, self.window(), labels=entry.scope_labels
        )
        self._open_paused(dialog)

    def _ask_arguments(self) -> None:
        if self.entry is None:
            return
        entry = self.entry
        dialog = EditArgumentsDialog(
            entry.tool, entry.arguments, entry.check, self.window(), correcting=bool(entry.problems)
        )
        self._open_paused(dialog)

    def _open_paused(self, dialog: AllowForDialog | EditArgumentsDialog) -> None:
        """Open `dialog`; the card's countdown stands still until it closes."""
        self.countdown.pause()
        dialog.finished.connect(self.countdown.resume)
        dialog.accepted.connect(lambda: self.answered.emit(dialog.choice()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
