"""Consent rules as a table: what each allows or denies, where, until when, last used when.

A rule that keeps allowing after the conversation read untrusted content says so in its
Decision cell, with a warning, in the warning colour.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont, QPalette

from hearth import UNTRUSTED_WARNING, Rule, Tool
from hearth.ui.pages.chrome import Tone, muted_color, tone_color
from hearth.ui.pages.table_model import ColumnsTableModel, Index
from hearth.ui.pages.units import local_time, relative_time

COLUMNS = ("Tool", "Effect", "Decision", "Scope", "Expires", "Last used")
TOOL, EFFECT, DECISION, SCOPE, EXPIRES, LAST_USED = range(len(COLUMNS))
SORT_ROLE = Qt.ItemDataRole.UserRole + 1

_DECISION_WORDS = {"allow": "Allow", "ask": "Ask first", "deny": "Deny"}
_DECISION_TONES: dict[str, Tone] = {"allow": "good", "ask": "warn", "deny": "bad"}
UNTRUSTED_DECISION = "Allow ⚠ even after untrusted content"


class RuleTableModel(ColumnsTableModel):
    """Rows are `Rule`s; the page decides which (live only, or every rule)."""

    columns = COLUMNS

    def __init__(
        self,
        tools: Sequence[Tool],
        palette: QPalette,
        clock: Callable[[], float] = time.time,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._tools = tuple(tools)
        self._palette = palette
        self._clock = clock
        self.rows: list[Rule] = []

    def set_rules(self, rules: list[Rule]) -> None:
        self.beginResetModel()
        self.rows = list(rules)
        self.endResetModel()

    def rule_at(self, row: int) -> Rule:
        return self.rows[row]

    def row_of(self, rule_id: str) -> int | None:
        return next((row for row, rule in enumerate(self.rows) if rule.id == rule_id), None)

    def times_did_pass(self) -> None:
        """Re-read the time columns ("in 42 min" becomes "in 41 min")."""
        if self.rows:
            first, last = self.index(0, EXPIRES), self.index(len(self.rows) - 1, LAST_USED)
            self.dataChanged.emit(first, last, [Qt.ItemDataRole.DisplayRole])

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        rule, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(rule, column)
        if role == SORT_ROLE:
            return self._sort_key(rule, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(rule)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(rule, column)
        if role == Qt.ItemDataRole.FontRole and column == DECISION:
            font = QFont()
            font.setWeight(QFont.Weight.DemiBold)
            return font
        return None

    def _text(self, rule: Rule, column: int) -> str:
        if column == TOOL:
            return rule.tool
        if column == EFFECT:
            return self.effect(rule)
        if column == DECISION:
            return UNTRUSTED_DECISION if rule.after_untrusted else _DECISION_WORDS[rule.decision]
        if column == SCOPE:
            return rule.scope or "Anything"
        if column == EXPIRES:
            return self.expiry(rule)
        return relative_time(rule.last_used_at, self._clock()) if rule.last_used_at else "Never"

    def effect(self, rule: Rule) -> str:
        """What the covered tools do: "read", "read, write", or a note when none is installed."""
        effects = {tool.effect for tool in self._tools if rule.covers_tool(tool.name)}
        return ", ".join(sorted(effects)) if effects else "tool not installed"

    def expiry(self, rule: Rule) -> str:
        now = self._clock()
        if rule.revoked:
            return "Revoked"
        if rule.consumed:
            return "Used up"
        if rule.expires_at is not None:
            return "Expired" if now >= rule.expires_at else relative_time(rule.expires_at, now)
        if rule.duration == "once":
            return "After one use"
        if rule.duration == "conversation":
            return "With its conversation"
        return "Never"

    def is_active(self, rule: Rule) -> bool:
        return rule.is_live(self._clock(), rule.conversation_id)

    def _sort_key(self, rule: Rule, column: int) -> Any:
        if column == EXPIRES:
            return rule.expires_at or (0.0 if not self.is_active(rule) else float("inf"))
        if column == LAST_USED:
            return rule.last_used_at or 0.0
        return self._text(rule, column).casefold()

    def _tooltip(self, rule: Rule) -> str:
        lines = [rule.describe().capitalize(), f"Created {local_time(rule.created_at)}"]
        if rule.last_used_at:
            lines.append(f"Last used {local_time(rule.last_used_at)}")
        if rule.expires_at:
            lines.append(f"Expires {local_time(rule.expires_at)}")
        if rule.source != "user":
            lines.append(f"Added by {rule.source}")
        if rule.after_untrusted:
            lines.append(
                f"{UNTRUSTED_WARNING.capitalize()}: it runs without asking even after Hearth read "
                "a file, an email or other content that could carry someone else's instructions"
            )
        return "\n".join(lines)

    def _foreground(self, rule: Rule, column: int) -> Any:
        if not self.is_active(rule):
            return muted_color(self._palette)
        if column == DECISION:
            tone = "warn" if rule.after_untrusted else _DECISION_TONES[rule.decision]
            return tone_color(self._palette, tone)
        if column == SCOPE and rule.scope is None:
            return muted_color(self._palette)
        return None
