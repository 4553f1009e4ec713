"""Trust this certificate: the first-use step for a server with a self-signed certificate.

When Test connection fails on a certificate the computer does not trust, and the connector
names the setting that would pin it, the panel shows the fingerprint and one button. Nothing
is trusted until the user presses it, and the connection is then tested again with the pin.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from hearth import CertificateNotTrusted, shown, spaced_fingerprint
from hearth.ui.pages.chrome import explanation


class TrustOffer(QWidget):
    """A hidden line until `offer`; pressing Trust emits the setting and the fingerprint."""

    trusted = Signal(str, str)  # the settings field, the SHA-256 fingerprint (64 hex digits)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = explanation("")
        self.fingerprint = QLabel()
        self.fingerprint.setObjectName("fingerprint")
        self.fingerprint.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.fingerprint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton("Trust this certificate")
        self.button.clicked.connect(self._trust)
        self._offered: tuple[str, str] | None = None
        words = QVBoxLayout()
        words.addWidget(self.text)
        words.addWidget(self.fingerprint)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(words, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def offer(self, refused: CertificateNotTrusted) -> None:
        self._offered = (refused.setting, refused.fingerprint)
        self.text.setText(
            "Trust it only if this is your own server and this is the SHA-256 fingerprint it "
            "shows you elsewhere:"
        )
        # Two lines of 16 bytes, as certificate viewers show it: a wrapped label would break
        # the 95 characters at an arbitrary colon, or not at all.
        spaced = shown(spaced_fingerprint(refused.fingerprint))
        self.fingerprint.setText(f"{spaced[:47]}\n{spaced[48:]}")
        self.show()

    def withdraw(self) -> None:
        self._offered = None
        self.hide()

    def _trust(self) -> None:
        if self._offered is not None:
            setting, fingerprint = self._offered
            self.withdraw()
            self.trusted.emit(setting, fingerprint)
