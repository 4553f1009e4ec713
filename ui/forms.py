"""A settings form built from `hearth.settings.form_fields`: no connector-specific code.

Each field type gets a plain input; a field left blank is left out of `values()`, so the
settings model's default applies, and a secret left blank keeps the one already stored.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from PySide6.QtCore import QLocale
from PySide6.QtGui import QDoubleValidator, QIntValidator, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from hearth import FormField
from hearth.ui.wheel_guard import leave_wheel_to_page

SECRET_KEPT = "Already set; leave blank to keep it"
SECRET_MISSING = "Not saved"
_PATH_FORMATS = ("path", "file-path", "directory-path")


class FieldInput(ABC):
    """One field's input widget, read and written as plain JSON-like values (None: blank)."""

    def __init__(self, field: FormField, widget: QWidget) -> None:
        self.field = field
        self.widget = widget

    @abstractmethod
    def value(self) -> Any: ...

    @abstractmethod
    def set_value(self, value: Any) -> None: ...


class TextInput(FieldInput):
    def __init__(self, field: FormField, *, validator: Any = None) -> None:
        self.edit = QLineEdit()
        self.edit.setAccessibleName(field.title)
        if field.secret:
            self.edit.setEchoMode(QLineEdit.EchoMode.Password)
            self.edit.setPlaceholderText(SECRET_MISSING)
        if validator is not None:
            self.edit.setValidator(validator)
        browsable = field.format in _PATH_FORMATS
        super().__init__(field, _with_browse(self.edit, field.format) if browsable else self.edit)

    def value(self) -> Any:
        text = self.edit.text().strip() if not self.field.secret else self.edit.text()
        return text or None

    def set_value(self, value: Any) -> None:
        self.edit.setText("" if value is None else str(value))


class NumberInput(TextInput):
    def __init__(self, field: FormField) -> None:
        whole = field.type == "integer"
        validator = QIntValidator() if whole else QDoubleValidator()
        validator.setLocale(QLocale.c())  # JSON numbers: a dot, never a decimal comma
        super().__init__(field, validator=validator)
        self.edit.setMaximumWidth(160)
        self._whole = whole

    def value(self) -> Any:
        text = self.edit.text().strip()
        if not text:
            return None
        return int(text) if self._whole else float(text)


class CheckInput(FieldInput):
    def __init__(self, field: FormField) -> None:
        self.box = QCheckBox()
        self.box.setAccessibleName(field.title)
        super().__init__(field, self.box)

    def value(self) -> Any:
        return self.box.isChecked()

    def set_value(self, value: Any) -> None:
        self.box.setChecked(bool(value))


class ChoiceInput(FieldInput):
    def __init__(self, field: FormField) -> None:
        self.combo = leave_wheel_to_page(QComboBox())
        self.combo.setAccessibleName(field.title)
        self.combo.setMinimumWidth(160)
        self.combo.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        if not field.required:
            self.combo.addItem("", None)
        for choice in field.choices:
            self.combo.addItem(str(choice), choice)
        super().__init__(field, self.combo)

    def value(self) -> Any:
        return self.combo.currentData()

    def set_value(self, value: Any) -> None:
        self.combo.setCurrentIndex(max(0, self.combo.findData(value)))


class ListInput(FieldInput):
    """A list of values, one per line."""

    def __init__(self, field: FormField) -> None:
        self.edit = QPlainTextEdit()
        self.edit.setPlaceholderText("One per line")
        self.edit.setFixedHeight(self.edit.fontMetrics().lineSpacing() * 4 + 12)
        super().__init__(field, self.edit)

    def value(self) -> Any:
        items = [line.strip() for line in self.edit.toPlainText().splitlines() if line.strip()]
        return items or None

    def set_value(self, value: Any) -> None:
        items = value if isinstance(value, list) else []
        self.edit.setPlainText("\n".join(str(item) for item in items))


class JsonInput(TextInput):
    """Anything else (nested objects): typed as JSON."""

    def value(self) -> Any:
        text = self.edit.text().strip()
        try:
            return json.loads(text) if text else None
        except ValueError:
            return text  # the settings model reports what is wrong with it

    def set_value(self, value: Any) -> None:
        self.edit.setText("" if value is None else json.dumps(value))


def make_input(field: FormField) -> FieldInput:
    if field.choices:
        return ChoiceInput(field)
    if field.type in ("integer", "number"):
        return NumberInput(field)
    if field.type == "boolean":
        return CheckInput(field)
    if field.type == "array":
        return ListInput(field)
    if field.type == "string":
        return TextInput(field)
    return JsonInput(field)


class SettingsForm(QWidget):
    """Rows of label, input and help text, one per field, in the settings model's order."""

    def __init__(self, fields: Iterable[FormField], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.inputs: dict[str, FieldInput] = {}
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setVerticalSpacing(12)
        for field in fields:
            entry = make_input(field)
            self.inputs[field.name] = entry
            layout.addRow(_label(field), self._with_help(entry, field))
        self.fill_defaults()

    def fill_defaults(self) -> None:
        for entry in self.inputs.values():
            entry.set_value(entry.field.default)

    def fill(self, values: Mapping[str, Any]) -> None:
        """Show saved values; secrets are never passed in, let alone shown."""
        for name, value in values.items():
            if name in self.inputs and not self.inputs[name].field.secret:
                self.inputs[name].set_value(value)

    def mark_secrets_stored(self, names: Iterable[str]) -> None:
        stored = set(names)
        for entry in self.inputs.values():
            if entry.field.secret and isinstance(entry, TextInput):
                entry.set_value(None)
                entry.edit.setPlaceholderText(
                    SECRET_KEPT if entry.field.name in stored else SECRET_MISSING
                )

    def values(self) -> dict[str, Any]:
        """What was entered; blanks are left out."""
        found = {name: entry.value() for name, entry in self.inputs.items()}
        return {name: value for name, value in found.items() if value is not None}

    def _with_help(self, entry: FieldInput, field: FormField) -> QWidget:
        if not field.description:
            return entry.widget
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(entry.widget)
        column.addWidget(_help(field.description))
        return box


def _label(field: FormField) -> QLabel:
    return QLabel(f"{field.title}{' *' if field.required else ''}:")


class HelpText(QLabel):
    """A field's wrapped help: never shorter than its lines at the width it has.

    A form layout squeezes a wrapped label below its height-for-width whenever the form gets
    less height than it asks for (as it does until the page lays itself out again), cutting
    off the last line; a minimum height that follows the width keeps every line.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setWordWrap(True)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._keep_every_line()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._keep_every_line()

    def _keep_every_line(self) -> None:
        needed = self.heightForWidth(self.width())
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)


def _help(text: str) -> QLabel:
    label = HelpText(text)
    palette = label.palette()
    muted = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText)
    palette.setColor(QPalette.ColorRole.WindowText, muted)
    label.setPalette(palette)
    return label


def _with_browse(edit: QLineEdit, path_format: str | None) -> QWidget:
    """A path field with a Browse… button opening a (non-blocking) file dialog."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(edit, 1)
    button = QPushButton("Browse…")
    row.addWidget(button)

    def browse() -> None:
        dialog = QFileDialog(box, "Choose", edit.text())
        if path_format == "directory-path":
            dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.fileSelected.connect(edit.setText)
        dialog.open()

    button.clicked.connect(browse)
    return box
