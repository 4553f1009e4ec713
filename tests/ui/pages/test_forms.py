"""The generic settings form: one input per field type, values that validate, secrets kept out."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pydantic
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QPlainTextEdit
from pytestqt.qtbot import QtBot

from hearth.settings.model import form_fields
from hearth.ui.forms import SECRET_KEPT, SettingsForm


class Everything(pydantic.BaseModel):
    name: str = pydantic.Field(description="Shown under the input.")
    retries: int = 3
    timeout: float = 2.5
    enabled: bool = True
    mode: Literal["fast", "safe"] = "safe"
    tags: list[str] = []
    limits: dict[str, int] = {}
    archive: pydantic.DirectoryPath | None = None
    token: pydantic.SecretStr | None = None


def form(qtbot: QtBot) -> SettingsForm:
    widget = SettingsForm(form_fields(Everything))
    qtbot.addWidget(widget)
    return widget


def test_each_type_gets_its_input_with_the_default_filled_in(qtbot: QtBot) -> None:
    settings_form = form(qtbot)
    inputs = settings_form.inputs
    assert isinstance(inputs["retries"].widget, QLineEdit)
    assert isinstance(inputs["enabled"].widget, QCheckBox)
    assert isinstance(inputs["mode"].widget, QComboBox)
    assert isinstance(inputs["tags"].widget, QPlainTextEdit)
    assert inputs["archive"].widget.findChild(QLineEdit) is not None  # with a Browse… button
    assert [inputs[name].value() for name in ("retries", "timeout", "enabled", "mode")] == [
        3,
        2.5,
        True,
        "safe",
    ]


def test_values_validate_and_blanks_are_left_out(qtbot: QtBot, tmp_path: Path) -> None:
    settings_form = form(qtbot)
    inputs = settings_form.inputs
    inputs["name"].set_value("desk")
    inputs["retries"].set_value("")
    inputs["timeout"].set_value(0.25)
    inputs["tags"].set_value(["home", "work"])
    inputs["limits"].set_value({"daily": 5})
    inputs["archive"].set_value(str(tmp_path))
    inputs["token"].set_value("s3cret")
    values = settings_form.values()
    assert "retries" not in values
    settings = Everything.model_validate(values)
    assert (settings.name, settings.retries, settings.timeout) == ("desk", 3, 0.25)
    assert (settings.tags, settings.limits, settings.archive) == (
        ["home", "work"],
        {"daily": 5},
        tmp_path,
    )
    assert settings.token is not None and settings.token.get_secret_value() == "s3cret"


def test_saved_values_fill_the_form_but_secrets_never_do(qtbot: QtBot) -> None:
    settings_form = form(qtbot)
    settings_form.fill({"name": "desk", "mode": "fast", "token": "leaked?"})
    settings_form.mark_secrets_stored({"token"})
    token = settings_form.inputs["token"].widget
    assert isinstance(token, QLineEdit)
    assert token.text() == "" and token.placeholderText() == SECRET_KEPT
    assert token.echoMode() == QLineEdit.EchoMode.Password
    assert settings_form.values()["mode"] == "fast"
    assert "token" not in settings_form.values()
