"""The Permissions dashboard: every consent rule, with revoke and edit, and connector defaults."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QPushButton,
    QTableView,
    QWidget,
)

from hearth import Permissions, Rule, RuleChange
from hearth.ui.context import UiContext
from hearth.ui.pages.chrome import configure_table, explanation, page_layout, section_heading
from hearth.ui.pages.connector_defaults import ConnectorDefaults
from hearth.ui.pages.rule_editor import RuleEditor
from hearth.ui.pages.rules_model import SCOPE, SORT_ROLE, TOOL, RuleTableModel

_CLOCK_TICK_MS = 30_000


class _RuleBookBridge(QObject):
    """Carries the rule book's change callbacks (from any thread) to the main thread."""

    rule_did_change = Signal(object)

    def __init__(self, permissions: Permissions, parent: QObject) -> None:
        super().__init__(parent)
        unsubscribe = permissions.subscribe(self.rule_did_change.emit)
        # A plain reference to call: by then this object is being destroyed.
        self.destroyed.connect(lambda: unsubscribe())


class PermissionsPage(QWidget):
    """Lists every rule the consent gate reads; changes take effect on the next tool call."""

    title = "Permissions"
    rules_did_change = Signal()  # the table now shows the rule book as it is
    rule_did_replace = Signal(object)  # the rule an edit created (the old one is revoked)

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.permissions = context.assistant.permissions
        self.editor: RuleEditor | None = None
        self.model = RuleTableModel(self.permissions.tools(), self.palette(), parent=self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        configure_table(self.table, stretch_column=SCOPE)
        self.table.sortByColumn(TOOL, Qt.SortOrder.AscendingOrder)
        self.show_inactive = QCheckBox("Show revoked and expired rules")
        self.edit_button = QPushButton("Edit…")
        self.revoke_button = QPushButton("Revoke")
        self.defaults = ConnectorDefaults(context)
        self.empty_note = explanation(
            "No rules yet. When you choose “Allow for…” on a tool card, the rule appears here."
        )
        self._lay_out()
        self._connect()
        _RuleBookBridge(self.permissions, self).rule_did_change.connect(self.reload)
        self._clock = QTimer(self)
        self._clock.timeout.connect(self.model.times_did_pass)
        self._clock.start(_CLOCK_TICK_MS)
        self.reload()

    def _lay_out(self) -> None:
        layout = page_layout(
            self,
            self.title,
            "What Hearth may do without asking you. Changes apply to the very next tool call; "
            "anything without a rule is asked about first.",
        )
        layout.addWidget(
            explanation(
                "Once Hearth has read a file, an email or other outside content in a "
                "conversation, it asks before every change, whatever these rules say; only "
                "rules marked “⚠ even after untrusted content” still allow without asking."
            )
        )
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty_note)
        buttons = QHBoxLayout()
        buttons.addWidget(self.show_inactive)
        buttons.addStretch(1)
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.revoke_button)
        layout.addLayout(buttons)
        layout.addWidget(section_heading("Connector defaults"))
        layout.addWidget(explanation("One decision for all of a connector's tools."))
        layout.addWidget(self.defaults)

    def _connect(self) -> None:
        self.show_inactive.toggled.connect(self.reload)
        self.edit_button.clicked.connect(self.edit_selected)
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)

    def reload(self) -> None:
        """Show the rule book as it is now (it lives in memory, so this reads no disk)."""
        selected = self.selected_rule()
        shown = [
            rule
            for rule in self.permissions.rules()
            if self.show_inactive.isChecked() or self.model.is_active(rule)
        ]
        self.model.set_rules(shown)
        if selected is not None:
            self.select_rule(selected.id)
        self.defaults.sync()
        self._update_buttons()
        self.rules_did_change.emit()

    def selected_rule(self) -> Rule | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.model.rule_at(self.proxy.mapToSource(rows[0]).row())

    def select_rule(self, rule_id: str) -> None:
        row = self.model.row_of(rule_id)
        if row is not None:
            self.table.selectRow(self.proxy.mapFromSource(self.model.index(row, 0)).row())

    def revoke_selected(self) -> None:
        rule = self.selected_rule()
        if rule is None:
            return
        permissions = self.permissions
        self.context.run(
            lambda: permissions.revoke(rule.id), receiver=self, doing="revoke that permission"
        )

    def edit_selected(self) -> None:
        rule = self.selected_rule()
        if rule is None or not self.model.is_active(rule):
            return
        self.editor = RuleEditor(rule, self.permissions.tool(rule.tool), self)
        editor = self.editor
        editor.accepted.connect(lambda: self.apply_change(rule, editor.change()))
        editor.open()

    def apply_change(self, rule: Rule, change: RuleChange) -> None:
        permissions = self.permissions
        self.context.run(
            lambda: permissions.edit(rule, change),
            receiver=self,
            success=self._replaced,
            doing="change that permission",
        )

    def _replaced(self, new: Rule) -> None:
        self.select_rule(new.id)
        self.rule_did_replace.emit(new)

    def _update_buttons(self, *_: object) -> None:
        rule = self.selected_rule()
        active = rule is not None and self.model.is_active(rule)
        self.edit_button.setEnabled(active)
        self.revoke_button.setEnabled(active)
        self.empty_note.setVisible(self.model.rowCount() == 0)

    def showEvent(self, event: QShowEvent) -> None:
        self.model.times_did_pass()
        super().showEvent(event)
