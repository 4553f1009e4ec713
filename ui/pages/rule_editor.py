"""The dialog that changes one rule's decision, scope, duration and untrusted-content flag."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from hearth import DURATION_WORDS, Duration, Rule, RuleChange, Tool
from hearth.ui.pages.chrome import explanation, set_tone

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
UNTRUSTED_CHOICE = "Even after reading untrusted content"
UNTRUSTED_WARNING_TEXT = (
    "⚠ Normally, once Hearth has read a file, an email or other outside content in a "
    "conversation, it asks before every change, because that content could carry someone "
    "else's instructions. With this on, this rule allows the call anyway. Use it only for "
    "actions you would accept on a stranger's say-so."
)


class RuleEditor(QDialog):
    """Edits a copy of a rule; the page applies `change()` when the dialog is accepted."""

    def __init__(self, rule: Rule, tool: Tool | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit permission")
        self.rule = rule
        self.decision = _combo(DECISIONS, rule.decision)
        self.scope = QLineEdit(rule.scope or "")
        self.scope.setMinimumWidth(360)  # the layout sets the dialog's minimum size from this
        self.duration = _combo(self._durations(), rule.duration)
        self.after_untrusted = QCheckBox(UNTRUSTED_CHOICE)
        self.after_untrusted.setChecked(rule.after_untrusted)
        self.untrusted_warning = explanation(UNTRUSTED_WARNING_TEXT)
        set_tone(self.untrusted_warning, "warn")
        form = QFormLayout()
        form.addRow("Tool:", QLabel(rule.tool))
        form.addRow("Decision:", self.decision)
        form.addRow("Scope:", self.scope)
        form.addRow("Lasts:", self.duration)
        form.addRow("", self.after_untrusted)
        form.addRow("", self.untrusted_warning)
        self._describe_scope(tool)
        self.decision.currentIndexChanged.connect(self._sync_untrusted)
        self.after_untrusted.toggled.connect(self._sync_untrusted)
        self._sync_untrusted()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        # The wrapped warning's height depends on the width; let the dialog grow to show it.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addLayout(form)
        layout.addWidget(explanation("The change applies to the next tool call."))
        layout.addWidget(buttons)

    def change(self) -> RuleChange:
        return RuleChange(
            decision=self.decision.currentData(),
            scope=self.scope.text().strip() or None,
            duration=self.duration.currentData(),
            after_untrusted=self.after_untrusted.isEnabled() and self.after_untrusted.isChecked(),
        )

    def _sync_untrusted(self, *_: object) -> None:
        """Only an allow rule can hold the flag; the warning shows whenever it is on."""
        allows = self.decision.currentData() == "allow"
        self.after_untrusted.setEnabled(allows)
        self.untrusted_warning.setVisible(allows and self.after_untrusted.isChecked())
        layout = self.layout()
        if layout is not None:
            layout.activate()
            self.adjustSize()

    def _durations(self) -> tuple[tuple[str, str], ...]:
        durations = DURATIONS if self.rule.conversation_id is None else (*DURATIONS, "conversation")
        return tuple((duration, _duration_words(duration)) for duration in durations)

    def _describe_scope(self, tool: Tool | None) -> None:
        if tool is not None and not tool.names_resource:
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
