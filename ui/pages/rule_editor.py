"""The dialog that changes one rule's decision, scope or duration."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from hearth.consent import Rule
from hearth.consent.changes import RuleChange
from hearth.ruling import DURATION_WORDS, Duration
from hearth.tools import Tool
from hearth.ui.pages.chrome import explanation

DECISIONS = (("allow", "Allow without asking"), ("ask", "Ask me first"), ("deny", "Never allow"))
DURATIONS: tuple[Duration, ...] = ("always", "hour", "once")
# Seen from the Permissions page, "always" needs saying how it ends and "this" has no referent.
_EDITOR_WORDS: dict[Duration, str] = {
    "always": "Until I revoke it",
    "conversation": "For its conversation",
}
_SCOPE_HINTS = {
    "path": "A folder, e.g. ~/Documents; empty means any folder",
    "recipient": "Addresses or @domain, comma-separated; empty means anyone",
    "calendar": "A calendar name; empty means any calendar",
    "setting": "A setting, optionally with a range like volume:0-50; empty means any",
}


class RuleEditor(QDialog):
    """Edits a copy of a rule; the page applies `change()` when the dialog is accepted."""

    def __init__(self, rule: Rule, tool: Tool | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit permission")
        self.setMinimumWidth(460)
        self.rule = rule
        self.decision = _combo(DECISIONS, rule.decision)
        self.scope = QLineEdit(rule.scope or "")
        self.duration = _combo(self._durations(), rule.duration)
        form = QFormLayout()
        form.addRow("Tool:", QLabel(rule.tool))
        form.addRow("Decision:", self.decision)
        form.addRow("Scope:", self.scope)
        form.addRow("Lasts:", self.duration)
        self._describe_scope(tool)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(explanation("The change applies to the next tool call."))
        layout.addWidget(buttons)

    def change(self) -> RuleChange:
        return RuleChange(
            decision=self.decision.currentData(),
            scope=self.scope.text().strip() or None,
            duration=self.duration.currentData(),
        )

    def _durations(self) -> tuple[tuple[str, str], ...]:
        durations = DURATIONS if self.rule.conversation_id is None else (*DURATIONS, "conversation")
        return tuple((duration, _duration_words(duration)) for duration in durations)

    def _describe_scope(self, tool: Tool | None) -> None:
        if tool is not None and tool.scope is None:
            self.scope.setEnabled(False)
            self.scope.setPlaceholderText("This tool does not name a resource")
            return
        kind = tool.scope_kind if tool is not None else None
        self.scope.setPlaceholderText(_SCOPE_HINTS.get(kind or "", "Empty means anything"))


def _duration_words(duration: Duration) -> str:
    words = _EDITOR_WORDS.get(duration) or DURATION_WORDS[duration]
    return words[:1].upper() + words[1:]


def _combo(choices: tuple[tuple[str, str], ...], current: str) -> QComboBox:
    combo = QComboBox()
    for value, words in choices:
        combo.addItem(words, value)
    combo.setCurrentIndex(max(0, combo.findData(current)))
    return combo
