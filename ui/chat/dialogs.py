"""The two questions a tool card may open: how long to allow a call for, and which arguments."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from hearth import DURATION_WORDS, AllowFor, Duration, EditArguments, ToolArgumentsError, shown

Check = Callable[[Mapping[str, Any]], Mapping[str, Any]]
_WHERE_TO_UNDO = {"always": ", until I revoke it under Permissions"}


def duration_choice(duration: Duration) -> str:
    """A duration as an option to pick: "For 1 hour", "Always, until I revoke it …"."""
    words = DURATION_WORDS[duration]
    return words[:1].upper() + words[1:] + _WHERE_TO_UNDO.get(duration, "")


class AllowForDialog(QDialog):
    """Pick how long (and, where the tool names a resource, for which one) to allow a call.

    `durations` come in the core's order, least lasting first; the first is preselected, so
    Enter never grants "always".
    """

    def __init__(
        self,
        tool: str,
        scopes: Sequence[str],
        durations: Sequence[Duration],
        parent: QWidget | None = None,
        *,
        labels: Sequence[str] = (),
    ) -> None:
        super().__init__(parent)
        tool = shown(tool)
        self.setWindowTitle(f"Allow {tool}")
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(QLabel(f"Let Hearth run <b>{html.escape(tool)}</b> without asking:"))
        self.durations = QButtonGroup(self)
        for number, duration in enumerate(durations):
            button = QRadioButton(duration_choice(duration))
            button.setProperty("duration", duration)
            button.setChecked(number == 0)
            self.durations.addButton(button, number)
            layout.addWidget(button)
        self.scope = QComboBox()
        words = list(labels) if len(labels) == len(scopes) else list(scopes)
        for pattern, label in zip(scopes, words, strict=True):
            self.scope.addItem(shown(label), pattern)
        if scopes:
            layout.addSpacing(6)
            layout.addWidget(QLabel("Only for:"))
            layout.addWidget(self.scope)
        layout.addSpacing(6)
        layout.addWidget(_buttons(self, "Allow"))
        self.durations.button(0).setFocus()

    def choice(self) -> AllowFor:
        checked = self.durations.checkedButton()
        assert checked is not None, "the first duration starts checked and one always stays"
        duration: Duration = checked.property("duration")
        scope = self.scope.currentData() if self.scope.count() else None
        return AllowFor(duration, scope=scope)


class EditArgumentsDialog(QDialog):
    """Edit a call's arguments as JSON; the tool's own check runs as you type.

    `correcting`: the call cannot run as proposed, so the edit is a correction that Hearth
    checks again (and may still ask about), not an approval to run.
    """

    def __init__(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        check: Check | None,
        parent: QWidget | None = None,
        *,
        correcting: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Edit the arguments for {shown(tool)}")
        self.resize(520, 360)
        self._check = check
        self._arguments: dict[str, Any] | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Change what the call will use, then run it:"))
        self.editor = QPlainTextEdit(editable_json(arguments))
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.editor, 1)
        self.problem = QLabel()
        self.problem.setObjectName("error")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)  # it quotes the values typed
        layout.addWidget(self.problem)
        buttons = _buttons(
            self, "Use these arguments" if correcting else "Run with these arguments"
        )
        self.run = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout.addWidget(buttons)
        self.editor.textChanged.connect(self._revalidate)
        self._revalidate()

    def choice(self) -> EditArguments:
        assert self._arguments is not None, "the dialog only accepts valid arguments"
        return EditArguments(self._arguments)

    def _revalidate(self) -> None:
        self._arguments, problem = parse_arguments(self.editor.toPlainText(), self._check)
        self.problem.setText(problem)
        self.problem.setVisible(bool(problem))
        self.run.setEnabled(self._arguments is not None)


def _buttons(dialog: QDialog, accept_text: str) -> QDialogButtonBox:
    """OK (named `accept_text`) as the default, Cancel never taking Enter for itself."""
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    )
    accept = buttons.button(QDialogButtonBox.StandardButton.Ok)
    accept.setText(accept_text)
    accept.setDefault(True)
    buttons.button(QDialogButtonBox.StandardButton.Cancel).setAutoDefault(False)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


def editable_json(arguments: Mapping[str, Any]) -> str:
    """The arguments as JSON to edit: what `shown` would escape is written as a JSON escape
    (`\\u202e`), so the text reads as what it is and still parses back to the exact values."""
    text = json.dumps(dict(arguments), indent=2, ensure_ascii=False)
    return "".join(c if shown(c, lines=True) == c else json.dumps(c)[1:-1] for c in text)


def parse_arguments(text: str, check: Check | None) -> tuple[dict[str, Any] | None, str]:
    """The edited arguments, or None and what is wrong with them."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"Not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})."
    if not isinstance(data, dict):
        return None, 'The arguments must be a JSON object: { "name": value, … }.'
    if check is not None:
        try:
            check(data)
        except ToolArgumentsError as error:  # said in plain words, one argument a line
            return None, "\n".join(shown(p.words) for p in error.problems) or str(error)
        except Exception as error:  # the tool's own check says what is wrong
            return None, str(error)
    return data, ""
