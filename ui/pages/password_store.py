"""Where passwords are kept, on the Accounts page, and Hearth's own dialog for its store.

On a computer without a keyring, Hearth keeps passwords in its own encrypted store. The store
is made and unlocked here, with a password typed into this dialog: never a prompt of some
library's on a terminal the window does not have.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hearth import MIN_PASSWORD_LENGTH, Place, Secrets, VaultError
from hearth.ui.pages.chrome import explanation, set_tone

MAKE = "Make a password store…"
UNLOCK = "Unlock…"


class PasswordStoreDialog(QDialog):
    """Make Hearth's password store (the password twice) or unlock it (once)."""

    def __init__(self, secrets: Secrets, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.secrets = secrets
        self.making = not secrets.vault.exists
        self.setWindowTitle("Hearth's password store")
        self.password = _password_field()
        self.again = _password_field()
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        set_tone(self.problem, "bad")
        self.problem.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Make the store" if self.making else "Unlock")
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("Not now")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Password", self.password)
        if self.making:
            form.addRow("Again", self.again)
        layout = QVBoxLayout(self)
        layout.addWidget(explanation(self._blurb()))
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.setMinimumWidth(420)

    def _blurb(self) -> str:
        if self.making:
            return (
                "This computer has no keyring to keep passwords. Hearth can keep them in its "
                "own encrypted file, opened by a password you choose (at least "
                f"{MIN_PASSWORD_LENGTH} characters). Hearth asks for it once each time it starts."
            )
        return (
            "Your account passwords are in Hearth's encrypted password store. Type its "
            "password to use your accounts this session."
        )

    def accept(self) -> None:
        """Make or unlock the store; on a problem, say it here and stay open."""
        password = self.password.text()
        if self.making and password != self.again.text():
            self._say("The two passwords differ.")
            return
        try:
            if self.making:
                self.secrets.create_store(password)
            else:
                self.secrets.unlock(password)
        except VaultError as error:
            self._say(str(error)[:1].upper() + str(error)[1:] + ".")
            self.password.selectAll()
            self.password.setFocus()
            return
        super().accept()

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()


class PasswordsLine(QWidget):
    """One line on where passwords are kept, with the store's Make or Unlock button."""

    store_changed = Signal()

    def __init__(self, secrets: Secrets, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.secrets = secrets
        self.text = explanation("")
        self.text.setObjectName("passwordsPlace")
        self.button = QPushButton()
        self.button.clicked.connect(self.open_dialog)
        self.dialog: PasswordStoreDialog | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self.refresh()

    def refresh(self) -> None:
        self.text.setText(self.secrets.describe())
        place = self.secrets.place
        if place is Place.SESSION:
            self.button.setText(MAKE)
        elif place is Place.VAULT and not self.secrets.vault.unlocked:
            self.button.setText(UNLOCK)
        self.button.setVisible(
            place is Place.SESSION or (place is Place.VAULT and not self.secrets.vault.unlocked)
        )

    def open_dialog(self) -> None:
        self.dialog = PasswordStoreDialog(self.secrets, self)
        self.dialog.accepted.connect(self._changed)
        self.dialog.open()

    def _changed(self) -> None:
        self.refresh()
        self.store_changed.emit()


def ask_to_unlock(secrets: Secrets, parent: QWidget) -> PasswordStoreDialog | None:
    """At start: the dialog that unlocks Hearth's password store, open, when it is locked."""
    if secrets.place is not Place.VAULT or secrets.vault.unlocked:
        return None
    dialog = PasswordStoreDialog(secrets, parent)
    dialog.open()
    return dialog


def _password_field() -> QLineEdit:
    field = QLineEdit()
    field.setEchoMode(QLineEdit.EchoMode.Password)
    return field
