"""One connector's setup: its generated form, Save, Test connection and Forget.

Under the form, the connector's own line on how it stands (`Connector.status_line()`), read on the
pool when the panel shows, after Save and Test connection, and every minute while it is shown.
"""

from __future__ import annotations

from typing import Any

import pydantic
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hearth import (
    CertificateNotTrusted,
    Connector,
    NoSecretStore,
    Saved,
    SecretsLocked,
    SecretStorageUnavailable,
    complete_settings,
    form_fields,
    hidden_fields,
    read_saved,
    secret_fields,
    shown,
)
from hearth.ui.context import UiContext
from hearth.ui.errors import status_unavailable
from hearth.ui.forms import SettingsForm
from hearth.ui.ops import run_op
from hearth.ui.pages.chrome import Tone, explanation, section_heading, set_tone
from hearth.ui.pages.connector_actions import ConnectorActions
from hearth.ui.pages.trust_offer import TrustOffer

PANEL_MAX_WIDTH = 640
STATUS_EVERY_MS = 60_000


class ConnectorSettingsPanel(QWidget):
    """Generic for every connector that declares a `settings` model."""

    settings_did_load = Signal()
    settings_did_save = Signal()
    settings_did_forget = Signal()
    connection_did_test = Signal(bool, str)  # succeeded, the message shown
    status_did_refresh = Signal(str)  # the connector's status line as shown ("" for none)

    def __init__(
        self, context: UiContext, connector: Connector, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        assert connector.settings is not None
        self.context = context
        self.connector = connector
        self.settings_model = connector.settings
        hidden = hidden_fields(connector.settings)
        self.form = SettingsForm(f for f in form_fields(connector.settings) if f.name not in hidden)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.test_button = QPushButton("Test connection")
        self.test_button.setVisible(connector.test_connection is not None)
        self.forget_button = QPushButton("Forget")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.trust_offer = TrustOffer()
        self.trust_offer.trusted.connect(self._trust)
        self.connector_status = explanation("")
        self.connector_status.setObjectName("connectorStatus")
        self.connector_status.hide()
        self.action_row = ConnectorActions(context, connector, self)
        self.action_row.action_done.connect(self._action_done)
        self.action_row.action_failed.connect(self._action_done)
        self._status_asked = 0  # only the latest read is shown; an older one may land later
        self.status_timer = QTimer(self)
        self.status_timer.setInterval(STATUS_EVERY_MS)
        self.status_timer.timeout.connect(self.refresh_status)
        self.confirm_box: QMessageBox | None = None
        self._lay_out()
        self.save_button.clicked.connect(self.save)
        self.test_button.clicked.connect(self.test_connection)
        self.forget_button.clicked.connect(self.forget)
        self.reload()

    def _lay_out(self) -> None:
        self.setMaximumWidth(PANEL_MAX_WIDTH)  # long fields are hard to read across a wide window
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(section_heading(self.connector.title))
        layout.addWidget(explanation(self.connector.description))
        layout.addSpacing(6)
        layout.addWidget(self.form)
        layout.addWidget(self.connector_status)
        layout.addWidget(self.action_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.forget_button)
        buttons.addStretch(1)
        buttons.addWidget(self.test_button)
        buttons.addWidget(self.save_button)
        layout.addSpacing(6)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.trust_offer)
        layout.addStretch(1)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh_status()
        self.status_timer.start()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # a label's text grew or shrank
            self._fit_height()
        return handled

    def _fit_height(self) -> None:
        # Wrapped help text needs more height at this width than the scroll area offers by
        # itself; asking for it keeps every line readable (the page scrolls instead).
        layout = self.layout()
        needed = layout.totalHeightForWidth(self.width()) if layout is not None else 0
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.status_timer.stop()

    def refresh_status(self) -> None:
        """Read the connector's status line on the pool; it may touch local files."""
        self._status_asked += 1
        asked = self._status_asked
        self.action_row.refresh()
        run_op(
            self.context.pool,
            self.connector.status_line,
            receiver=self,
            # A status line may quote a server (its last error): shown, controls visible.
            success=lambda line: self._show_status(asked, shown(line or "", lines=True)),
            # A status that cannot be read is not worth a dialog every minute; it says so here.
            failure=lambda error: self._show_status(asked, status_unavailable(error)),
        )

    def _action_done(self, said: str) -> None:
        self._say(said)
        self.refresh_status()

    def _show_status(self, asked: int, line: str) -> None:
        if asked != self._status_asked:
            return
        self.connector_status.setTextFormat(Qt.TextFormat.PlainText)
        self.connector_status.setText(line)
        self.connector_status.setVisible(bool(line))
        self.status_did_refresh.emit(line)

    def reload(self) -> None:
        store, name, model = self.context.settings, self.connector.name, self.settings_model
        self.context.run(
            lambda: read_saved(store, name, model),
            receiver=self,
            success=self._show_saved,
            doing=f"read the {self.connector.title} settings",
        )

    def _show_saved(self, saved: Saved) -> None:
        self.form.fill_defaults()
        self.form.fill(saved.values)
        self.form.mark_secrets_stored(saved.secrets_stored)
        if saved.secrets_unread:
            self._say(f"The password cannot be read: {saved.secrets_unread}.", "warn")
        self.settings_did_load.emit()

    def save(self) -> None:
        entered = self.form.values()
        store, name, model = self.context.settings, self.connector.name, self.settings_model

        def work() -> tuple[Saved, str]:
            settings = complete_settings(store, name, model, entered)
            try:
                store.save(name, settings)
            except SecretStorageUnavailable as error:
                # Not stored: held in memory so this session works, and said so plainly.
                store.hold(name, _secrets(settings))
                self.connector.settings_saved()
                return read_saved(store, name, model), session_only(error)
            self.connector.settings_saved()
            return read_saved(store, name, model), ""

        self._say("Saving…")
        self.context.run(
            work,
            receiver=self,
            success=self._saved,
            doing=f"save the {self.connector.title} settings",
        )

    def _saved(self, outcome: tuple[Saved, str]) -> None:
        saved, note = outcome
        self._show_saved(saved)
        if note:
            self._say(note, "warn")
        else:
            self._say("Saved.", "good")
        self.settings_did_save.emit()
        self.refresh_status()

    def test_connection(self) -> None:
        check = self.connector.test_connection
        if check is None:
            return
        entered = self.form.values()
        store, name, model = self.context.settings, self.connector.name, self.settings_model
        self.test_button.setEnabled(False)
        self.trust_offer.withdraw()
        self._say("Connecting…")
        run_op(
            self.context.pool,
            lambda: check(complete_settings(store, name, model, entered)),
            receiver=self,
            success=self._connected,
            failure=self._not_connected,
        )

    def _trust(self, setting: str, fingerprint: str) -> None:
        self.form.fill({setting: fingerprint})
        self.test_connection()

    def _connected(self, result: Any) -> None:
        self.test_button.setEnabled(True)
        said = result.strip() if isinstance(result, str) else ""
        text = said or f"Connected to {self.connector.title}."
        self._say(text, "good")
        self.connection_did_test.emit(True, text)
        self.refresh_status()

    def _not_connected(self, error: Exception) -> None:
        self.test_button.setEnabled(True)
        if isinstance(error, CertificateNotTrusted) and error.setting in self.form.inputs:
            # The panel says it all, the fingerprint under it: no dialog on top.
            self._say(f"The connection test failed: {error.refusal or error}", "bad")
            self.trust_offer.offer(error)
        else:
            self._say(f"The connection test failed: {error}", "bad")
            self.context.errors.show(self, f"connect to {self.connector.title}", error)
        self.connection_did_test.emit(False, str(error))
        self.refresh_status()

    def forget(self) -> None:
        """Ask first: the stored secrets cannot be shown again, only typed again."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Hearth",
            f"Forget the {self.connector.title} settings?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText("The saved values and the stored passwords are deleted.")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(self._forget_if_confirmed)
        self.confirm_box = box
        box.open()

    def _forget_if_confirmed(self, answer: int) -> None:
        if answer == QMessageBox.StandardButton.Yes:
            self.forget_now()

    def forget_now(self) -> None:
        store, name, model = self.context.settings, self.connector.name, self.settings_model
        self.context.run(
            lambda: store.delete(name, model),
            receiver=self,
            success=lambda _: self._forgotten(),
            doing=f"forget the {self.connector.title} settings",
        )

    def _forgotten(self) -> None:
        self._show_saved(Saved())
        self._say("Forgotten: the settings and their stored secrets are gone.")
        self.settings_did_forget.emit()

    def _say(self, text: str, tone: Tone | None = None) -> None:
        self.status.setText(text)
        set_tone(self.status, tone)


def session_only(error: SecretStorageUnavailable) -> str:
    """What Save says when the settings were saved but the password could not be kept."""
    if isinstance(error, NoSecretStore):
        why = "this computer has no keyring. To keep it, make a password store (top of the page)"
    elif isinstance(error, SecretsLocked):
        why = "Hearth's password store is locked. To keep it, unlock the store (top of the page)"
    else:
        why = f"{error}"
    return f"Saved. The password is used for this session only: {why}."


def _secrets(settings: pydantic.BaseModel) -> dict[str, str]:
    values = {name: getattr(settings, name) for name in secret_fields(type(settings))}
    return {
        name: value.get_secret_value() if isinstance(value, pydantic.SecretStr) else str(value)
        for name, value in values.items()
        if value is not None
    }
