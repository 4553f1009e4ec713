"""One decision per connector (allow, ask, never) covering all of its tools at once."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QWidget

from hearth import Connector, counted
from hearth.ui.context import UiContext
from hearth.ui.ops import run_op
from hearth.ui.pages.chrome import muted_color

CHOICES = (
    ("ask", "Ask every time"),
    ("allow", "Allow all its tools"),
    ("deny", "Never allow"),
)
_NO_PATTERN = (
    "This connector's tools are not all named '{name}.…', so one rule cannot cover them; "
    "set permissions per tool instead."
)


class ConnectorDefaults(QWidget):
    """A row per connector; each change is one rule on `<connector>.*`, applied immediately."""

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.permissions = context.assistant.permissions
        self.combos: dict[str, QComboBox] = {}
        self._connectors: dict[str, Connector] = {}
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.setHorizontalSpacing(24)
        connectors = self.permissions.connectors()
        for connector in connectors:
            form.addRow(self._label(connector), self._combo(connector))
        if not connectors:
            form.addRow(QLabel("No connectors are installed."))
        self.sync()

    def sync(self) -> None:
        """Show each connector's current default without triggering a change."""
        for name, combo in self.combos.items():
            connector = self._connectors.get(name)
            rule = self.permissions.connector_default(connector) if connector else None
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(rule.decision if rule else "ask"))
            combo.blockSignals(False)

    def _label(self, connector: Connector) -> QLabel:
        tools = self.permissions.connector_tools(connector)
        effects = ", ".join(sorted({tool.effect for tool in tools})) or "no tools"
        count = counted(len(tools), "tool")
        muted = muted_color(self.palette()).name()
        label = QLabel(
            f"<b>{connector.title}</b>&nbsp;&nbsp;"
            f"<span style='color:{muted}'>{count} · {effects}</span>"
        )
        label.setToolTip(connector.description)
        return label

    def _combo(self, connector: Connector) -> QComboBox:
        combo = QComboBox()
        combo.setAccessibleName(f"Default for {connector.title}")
        for value, words in CHOICES:
            combo.addItem(words, value)
        self.combos[connector.name] = combo
        pattern = self.permissions.connector_pattern(connector)
        if pattern is None:
            combo.setEnabled(False)
            combo.setToolTip(_NO_PATTERN.format(name=connector.name))
            return combo
        self._connectors[connector.name] = connector
        combo.setToolTip(f"One rule on {pattern}. A 'Never allow' rule, here or per tool, wins.")
        combo.currentIndexChanged.connect(lambda _index: self._choose(connector, pattern, combo))
        return combo

    def _choose(self, connector: Connector, pattern: str, combo: QComboBox) -> None:
        decision = combo.currentData()
        permissions = self.permissions
        doing = f"change the default for {pattern}"

        def undo_choice(error: Exception) -> None:
            self.sync()
            self.context.errors.show(self, doing, error)

        run_op(
            self.context.pool,
            lambda: permissions.set_connector_default(connector, decision),
            receiver=self,
            failure=undo_choice,
        )
